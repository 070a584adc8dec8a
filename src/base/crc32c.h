// CRC-32C (Castagnoli), the checksum of Kafka's v2 record batches and producer snapshots.
// Computed by ISA-L's crc32_iscsi, which uses the SSE4.2 crc32 instruction and PCLMULQDQ
// folding where the CPU has them. Check value: Crc32c("123456789") == 0xE3069283.
#ifndef SEGLOG_BASE_CRC32C_H_
#define SEGLOG_BASE_CRC32C_H_

#include <cstdint>
#include <span>

namespace seglog {

// The CRC-32C of `data` (initial value and final xor 0xFFFFFFFF, as Kafka's Crc32C).
uint32_t Crc32c(std::span<const uint8_t> data);

// Continues a CRC-32C: Crc32cExtend(Crc32c(a), b) == Crc32c(a ++ b).
uint32_t Crc32cExtend(uint32_t crc, std::span<const uint8_t> data);

// CRC-32 (IEEE 802.3, zlib's), the checksum of legacy magic 0/1 messages.
uint32_t Crc32Ieee(std::span<const uint8_t> data);

}  // namespace seglog

#endif  // SEGLOG_BASE_CRC32C_H_
