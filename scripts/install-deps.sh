#!/bin/sh
# Install what tandem needs to build and test, on Debian or Ubuntu.
set -e
pkgs="build-essential autoconf automake pkg-config libncurses-dev libcurl4-openssl-dev
libcjson-dev libpcre2-dev libmd4c-dev libssl-dev tmux jq curl valgrind time bc git patch
clang libclang-rt-14-dev fontconfig fonts-dejavu-core faketime
nano
libgumbo-dev bzip2-doc libtasn1-doc clangd
python3"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
# Skip the network when everything is already there.
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi
# The Node test peers (MCP servers, the Agent SDK and ACP clients), from tests/npm's lockfile.
if ! command -v npm >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
fi
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/tests/npm/package-lock.json" ]; then
	(cd "$here/tests/npm" && npm ci --no-audit --no-fund --loglevel=error)
fi
