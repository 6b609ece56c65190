#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-stat --listen --web.config.file (docs/accounting.md, "TLS and basic
# authentication"): exporter-toolkit's web configuration file.  A self-signed
# certificate made here with openssl, scraped with curl over HTTPS without
# credentials (401), with a wrong password (401) and with the right one (200);
# basic authentication over plain HTTP; and the files refused, each with a
# message naming the key or the line.  The bcrypt hash is made with perl's
# crypt(), which is libxcrypt's (the library vpmu-stat checks it with).
B=${VPMU_BUILD:-build}
STAT=$B/bin/vpmu-stat
tmp=$(mktemp -d) || exit 1
exp=
trap '[ -n "$exp" ] && kill "$exp" 2>/dev/null; rm -rf "$tmp"' EXIT
. tests/tap.sh
export VPMU_RUNTIME_DIR="$tmp/run"
mkdir -m 700 "$VPMU_RUNTIME_DIR"
for tool in curl openssl perl; do
	command -v $tool >/dev/null || { echo "1..0 # $tool is missing: scripts/install-deps installs it"; exit 1; }
done
port=$((20000 + ($$ + 7) % 20000))
while busybox nc -z 127.0.0.1 "$port" 2>/dev/null; do port=$((port + 1)); done

start() {
	: >"$tmp/exp.err"
	"$STAT" --listen "127.0.0.1:$port" "$@" 2>>"$tmp/exp.err" &
	exp=$!
	i=0
	while ! grep -q serving "$tmp/exp.err" && kill -0 "$exp" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	grep -q serving "$tmp/exp.err"
}
stop() { kill -TERM "$exp" 2>/dev/null; wait "$exp" 2>/dev/null; exp=; }
code() { curl -s -o "$tmp/body" -w '%{http_code}\n' "$@" 2>"$tmp/curl.err"; }

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
	-keyout "$tmp/server.key" -out "$tmp/server.crt" >"$tmp/openssl.log" 2>&1
ok $? "a self-signed certificate (openssl req -x509)" "$tmp/openssl.log"
hash=$(perl -e 'print crypt("s3cret", q($2b$05$) . "abcdefghijklmnopqrstuu")')
case $hash in '$2b$05$'*) r=0 ;; *) r=1 ;; esac
ok $r "a bcrypt hash from crypt(3) ($hash)"

# Paths relative to the file's directory, as exporter-toolkit takes them.
cat >"$tmp/web.yml" <<YML
# exporter-toolkit's web configuration
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$hash'
YML
start --web.config.file "$tmp/web.yml"
ok $? "--web.config.file with TLS and a user: serving" "$tmp/exp.err"
ok $(grep -q 'serving https://127.0.0.1' "$tmp/exp.err" && [ "$(wc -l <"$tmp/exp.err")" -eq 1 ]; echo $?) \
	"it says https, and nothing else (no libmicrohttpd complaint)" "$tmp/exp.err"
c=$(code --cacert "$tmp/server.crt" "https://127.0.0.1:$port/metrics")
ok $([ "$c" = 401 ]; echo $?) "HTTPS without credentials: 401 ($c)" "$tmp/curl.err"
c=$(code --cacert "$tmp/server.crt" -D "$tmp/hdr" "https://127.0.0.1:$port/")
ok $([ "$c" = 401 ] && grep -qi '^WWW-Authenticate: Basic realm="vpmu-stat"' "$tmp/hdr"; echo $?) \
	"the landing page too, with a Basic challenge ($c)" "$tmp/hdr"
c=$(code --cacert "$tmp/server.crt" -u prometheus:wrong "https://127.0.0.1:$port/metrics")
ok $([ "$c" = 401 ]; echo $?) "a wrong password: 401 ($c)" "$tmp/curl.err"
c=$(code --cacert "$tmp/server.crt" -u nobody:s3cret "https://127.0.0.1:$port/metrics")
ok $([ "$c" = 401 ]; echo $?) "an unknown user: 401 ($c)" "$tmp/curl.err"
c=$(code --cacert "$tmp/server.crt" -u prometheus:s3cret "https://localhost:$port/metrics")
ok $([ "$c" = 200 ] && grep -q '^vpmu_build_info' "$tmp/body"; echo $?) \
	"the right password, the certificate verified: 200 and the metrics ($c)" "$tmp/curl.err"
c=$(code -u prometheus:s3cret "http://127.0.0.1:$port/metrics")
ok $([ "$c" != 200 ]; echo $?) "plain HTTP to the TLS port: no metrics ($c)"
stop

printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >"$tmp/auth.yml"
start --web.config.file="$tmp/auth.yml"   # the exporters' --flag=value form
c1=$(code "http://127.0.0.1:$port/metrics")
c2=$(code -u prometheus:s3cret "http://127.0.0.1:$port/metrics")
ok $([ "$c1" = 401 ] && [ "$c2" = 200 ] && [ "$(wc -l <"$tmp/exp.err")" -eq 1 ]; echo $?) \
	"basic authentication alone over HTTP: $c1, then $c2 (and one line on stderr)" "$tmp/exp.err"
stop

: >"$tmp/empty.yml"
start --web.config.file "$tmp/empty.yml"
c=$(code "http://127.0.0.1:$port/metrics")
ok $([ "$c" = 200 ]; echo $?) "an empty file: plain HTTP, no users ($c)" "$tmp/exp.err"
stop

refused() { # refused REGEX DESCRIPTION: $tmp/bad.yml is refused, status 1
	"$STAT" --listen "127.0.0.1:$port" --web.config.file "$tmp/bad.yml" >/dev/null 2>"$tmp/err" &
	p=$!
	sleep 0.5
	if kill -0 $p 2>/dev/null; then kill $p; wait $p; ok 1 "$2: it served" "$tmp/err"; return; fi
	wait $p
	rc=$?
	[ $rc -eq 1 ] && grep -q -E -- "$1" "$tmp/err"
	ok $? "$2 (status $rc)" "$tmp/err"
}
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  ciphers: x\n' >"$tmp/bad.yml"
refused \
	"bad.yml: line 4: unknown key 'ciphers' in tls_server_config" "an unknown key: refused, its name and line said"
printf 'http_server_config:\n  http2: false\n' >"$tmp/bad.yml"
refused \
	"line 1: 'http_server_config' in the file: an exporter-toolkit key that vpmu-stat does not implement" \
	"an exporter-toolkit key vpmu-stat lacks: refused as such"
printf 'basic_auth_users:\n  prometheus: s3cret\n' >"$tmp/bad.yml"
refused "user 'prometheus': the password must be a bcrypt hash" \
	"a clear-text password: refused"
printf 'basic_auth_users:\n  prometheus: $2b$05$abcdefghij\n' >"$tmp/bad.yml"
refused "user 'prometheus': the password must be a bcrypt hash" \
	"a truncated bcrypt hash: refused"
printf 'tls_server_config:\n  cert_file: server.crt\n' >"$tmp/bad.yml"
refused "tls_server_config needs both cert_file and key_file" \
	"a certificate without its key: refused"
printf 'tls_server_config:\n  cert_file: nosuch.crt\n  key_file: server.key\n' >"$tmp/bad.yml"
refused \
	"line 2: .*/nosuch.crt: No such file" "a missing certificate file: refused, named"
printf 'tls_server_config: [cert_file]\n' >"$tmp/bad.yml"
refused "tls_server_config must be a mapping" "a list where a mapping goes: refused"
printf 'basic_auth_users:\n  a: x\n  a: y\n' >"$tmp/bad.yml"
refused "'a' is given twice" "a user given twice: refused"
printf 'basic_auth_users: {a: b\n' >"$tmp/bad.yml"
refused "bad.yml: line [0-9]+: " "not YAML: libyaml's error, with its line"
cp "$tmp/server.crt" "$tmp/server2.key"
printf 'tls_server_config:\n  cert_file: %s/server.crt\n  key_file: %s/server2.key\n' "$tmp" "$tmp" >"$tmp/bad.yml"
refused \
	"cannot listen on 127.0.0.1:$port .*a certificate and key GnuTLS refuses" "a certificate as the key: GnuTLS refuses, said"
"$STAT" --listen "127.0.0.1:$port" --web.config.file "$tmp/nosuch.yml" 2>"$tmp/err"
ok $([ $? -eq 1 ] && grep -q "nosuch.yml: No such file" "$tmp/err"; echo $?) "a missing file: status 1, named" "$tmp/err"
echo "1..$n"
