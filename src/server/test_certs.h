// Test only: a certificate authority and certificates it signs, made with OpenSSL in memory
// (P-256 keys), as PEM text - for TLS listener tests that need no files from elsewhere.
//
// Thread safety: not thread-safe; one test's.
#ifndef SEGLOG_SERVER_TEST_CERTS_H_
#define SEGLOG_SERVER_TEST_CERTS_H_

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

namespace seglog::testing {

struct PemKeyPair {
  std::string key;          // PKCS#8, unencrypted unless a password was given
  std::string certificate;  // PEM
};

class TestCa {
 public:
  TestCa() : key_(EVP_EC_gen("P-256")) { cert_ = Sign(key_, "CN=seglog-test-ca", true); }
  ~TestCa() {
    EVP_PKEY_free(key_);
    X509_free(cert_);
  }
  TestCa(const TestCa&) = delete;
  TestCa& operator=(const TestCa&) = delete;

  std::string certificate() const { return ToPem(cert_); }

  // A certificate for `subject` ("CN=alice,OU=eng,O=example"), signed by this CA; its key
  // encrypted with `password` when one is given.
  PemKeyPair Issue(const std::string& subject, const std::string& password = "") {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = Sign(key, subject, false);
    PemKeyPair out;
    out.certificate = ToPem(cert);
    BIO* bio = BIO_new(BIO_s_mem());
    if (password.empty()) {
      PEM_write_bio_PKCS8PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    } else {
      PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), password.data(),
                                    static_cast<int>(password.size()), nullptr, nullptr);
    }
    out.key = Drain(bio);
    X509_free(cert);
    EVP_PKEY_free(key);
    return out;
  }

 private:
  static std::string Drain(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    std::string s(data, static_cast<size_t>(n));
    BIO_free(bio);
    return s;
  }
  static std::string ToPem(X509* cert) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    return Drain(bio);
  }
  // Signs `key`'s certificate for `subject` ("A=b,C=d", most significant last as RFC 2253
  // prints it): self-signed for the CA.
  X509* Sign(EVP_PKEY* key, const std::string& subject, bool ca) {
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), ++serial_);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_NAME_new();
    // RFC 2253 lists the most specific part first; the certificate holds it last.
    std::string rest = subject;
    std::vector<std::pair<std::string, std::string>> parts;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string part = rest.substr(0, comma);
      const size_t eq = part.find('=');
      parts.emplace_back(part.substr(0, eq), part.substr(eq + 1));
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      X509_NAME_add_entry_by_txt(name, it->first.c_str(), MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(it->second.c_str()), -1, -1,
                                 0);
    }
    X509_set_subject_name(cert, name);
    X509_set_issuer_name(cert, ca ? name : X509_get_subject_name(cert_));
    X509_NAME_free(name);
    if (ca) {
      X509V3_CTX v3;
      X509V3_set_ctx_nodb(&v3);
      X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, NID_basic_constraints, "CA:TRUE");
      X509_add_ext(cert, ext, -1);
      X509_EXTENSION_free(ext);
    }
    X509_sign(cert, ca ? key : key_, EVP_sha256());
    return cert;
  }

  EVP_PKEY* key_;
  X509* cert_ = nullptr;
  long serial_ = 0;
};

}  // namespace seglog::testing

#endif  // SEGLOG_SERVER_TEST_CERTS_H_
