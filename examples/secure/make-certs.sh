#!/usr/bin/env bash
# A certificate authority and a server certificate for 127.0.0.1 and localhost, with openssl,
# in ./certs: ca.crt (give it to clients), server.pem (seglog's PEM key store: key + chain).
# For a real host, add its name to the subjectAltName line.
set -euo pipefail
mkdir -p certs && cd certs
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
  -keyout ca.key -out ca.crt -subj "/CN=seglog-example-ca"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout server.key -out server.csr -subj "/CN=localhost"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 \
  -extfile server.ext -out server.crt
cat server.key server.crt ca.crt > server.pem
chmod 600 ca.key server.key server.pem
echo "certs/: ca.crt for clients, server.pem for seglog"
