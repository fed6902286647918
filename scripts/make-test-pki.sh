#!/usr/bin/env bash
# Makes a throwaway PKI for the TLS tests and the demo in DIR (created if missing), with the
# openssl command line: a CA, a server certificate for localhost / 127.0.0.1 / ::1 signed by it,
# one for another host name, an expired one, a self-signed one nobody trusts, and the base64
# SHA-256 SPKI pins of the server certificate and of another key. P-256 keys: fast to make.
#   usage: scripts/make-test-pki.sh DIR
set -euo pipefail
dir=${1:?usage: make-test-pki.sh DIR}
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
local_names="subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"

openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 3650 -subj "/CN=CheckoutKit Test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

sign() { # name subject san
    openssl req "${ec[@]}" -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\nextendedKeyUsage=serverAuth\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 30 \
        -extfile "$1.ext" 2>/dev/null
}
sign server "/CN=localhost" "$local_names"
sign wrong-host "/CN=wrong.example" "subjectAltName=DNS:wrong.example"

# Expired: `openssl ca` is the command-line tool that takes explicit validity dates.
mkdir -p ca-db
: > ca-db/index.txt
echo 1000 > ca-db/serial
cat > ca.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = any
copy_extensions = copy
[ any ]
commonName = supplied
CNF
openssl req "${ec[@]}" -keyout expired.key -out expired.csr -subj "/CN=localhost" -addext "$local_names" 2>/dev/null
openssl ca -batch -config ca.cnf -startdate 20200101000000Z -enddate 20200201000000Z -notext \
    -in expired.csr -out expired.pem 2>/dev/null

openssl req -x509 "${ec[@]}" -keyout self-signed.key -out self-signed.pem -days 30 -subj "/CN=localhost" \
    -addext "$local_names" 2>/dev/null

pin() { openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64; }
pin server.pem > server.pin
pin wrong-host.pem > other.pin
