// CIDR host patterns in ACLs (Kafka 4.4's CidrUtils): an ACL whose host contains '/' matches
// every client address in that range - IPv4 "10.0.0.0/8" (network and broadcast addresses
// included), IPv6 "2001:db8::/32" (a host with ':' is IPv6).
//
// Thread safety: pure functions.
#ifndef SEGLOG_SECURITY_CIDR_H_
#define SEGLOG_SECURITY_CIDR_H_

#include <string>
#include <string_view>

#include "seglog/status.h"

namespace seglog {

// InvalidArgument naming the problem for a range that does not parse.
Status ValidateCidr(std::string_view cidr);

// Whether `address` (an IP address as text) lies in `cidr`; false when either does not parse
// or their families differ.
bool AddressInCidr(std::string_view address, std::string_view cidr);

}  // namespace seglog

#endif  // SEGLOG_SECURITY_CIDR_H_
