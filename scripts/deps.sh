#!/usr/bin/env bash
# Installs the Debian 12 packages nfsagent needs to build, test and demo
# (only those missing; uses sudo when not root).
set -euo pipefail
packages=(
	build-essential cmake pkg-config
	libcurl4-openssl-dev libxml2-dev libssl-dev libjansson-dev libcmocka-dev libsqlite3-dev libinih-dev libpq-dev
	golang-go golang-github-vmware-govmomi-dev
	jq python3 openssl curl fio sqlite3 procps libxml2-utils
	openssh-client openssh-server zsh postgresql
	chromium
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
