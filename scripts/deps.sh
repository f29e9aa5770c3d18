#!/usr/bin/env bash
# Installs the Debian packages a make target needs, only when missing.
# Usage: scripts/deps.sh GROUP...   (groups: build check bench lttng qemu fuzz report)
set -eu

pkgs_build="gcc make pkg-config libyaml-dev libelf-dev libdw-dev"
pkgs_check="babeltrace2 python3-bt2 python3-barectf gcc-arm-none-eabi libnewlib-arm-none-eabi
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf clang valgrind
  lttng-tools liblttng-ust-dev"
pkgs_bench="babeltrace2 python3-barectf valgrind uftrace"
pkgs_lttng="lttng-tools liblttng-ust-dev"
pkgs_qemu="qemu-system-arm qemu-system-misc gcc-arm-none-eabi libnewlib-arm-none-eabi
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"
pkgs_fuzz="clang"
pkgs_report="chromium nodejs npm"

want=""
for group in "$@"; do
	var="pkgs_$group"
	if [ -z "${!var+x}" ]; then
		echo "deps.sh: unknown group '$group'" >&2
		exit 2
	fi
	want="$want ${!var}"
done

missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

echo "hetrace: missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "hetrace: run as root, or install them: apt-get install -y$missing" >&2
	exit 1
fi
echo "hetrace: installing them: apt-get update && apt-get install -y$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "hetrace: installed:$missing"
