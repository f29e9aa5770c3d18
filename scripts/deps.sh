#!/usr/bin/env bash
# Installs the Debian packages a make target needs, only when missing.
# Usage: scripts/deps.sh GROUP...   (groups: build check bench lttng qemu fuzz report,
#   cross-TRIPLET, cross-elfutils-TRIPLET)
# A package NAME:ARCH is a Debian multiarch package of another
# architecture (a cross build's libraries); the architecture is added to
# dpkg (dpkg --add-architecture) before it is installed.
set -eu

pkgs_build="gcc make pkg-config libyaml-dev libjson-c-dev libelf-dev libdw-dev help2man"
pkgs_check="babeltrace2 python3-bt2 python3-barectf gcc-arm-none-eabi libnewlib-arm-none-eabi
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf clang clang-format valgrind
  lttng-tools liblttng-ust-dev chromium qemu-system-arm qemu-system-misc
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross libyaml-dev:arm64 libjson-c-dev:arm64 qemu-user"
pkgs_bench="babeltrace2 python3-barectf valgrind uftrace"
pkgs_lttng="lttng-tools liblttng-ust-dev"
pkgs_qemu="qemu-system-arm qemu-system-misc gcc-arm-none-eabi libnewlib-arm-none-eabi
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"
pkgs_fuzz="clang"
pkgs_report="chromium"
# A cross build of the master (make CROSS_COMPILE=TRIPLET-): the Debian
# cross compiler, its C library and the target's libyaml and libjson-c (cross-TRIPLET), its elfutils
# unless NO_ELFUTILS (cross-elfutils-TRIPLET). Debian's cross compilers
# find the multiarch libraries of their architecture without a sysroot.
deb_arch() {
	case "$1" in
	aarch64-linux-gnu) echo arm64 ;;
	arm-linux-gnueabihf) echo armhf ;;
	riscv64-linux-gnu) echo riscv64 ;;
	x86_64-linux-gnu) echo amd64 ;;
	*) return 1 ;;
	esac
}
# npm packages (groups check and report): installed into build/npm
# (tests/export/report/test-report.sh finds them there); node and npm come
# from Debian's nodejs and npm when there is no node at all.
npm_pkgs="playwright-core@1.65.1"

want=""
for group in "$@"; do
	case "$group" in
	cross-elfutils-* | cross-*)
		triplet=${group#cross-}
		triplet=${triplet#elfutils-}
		if ! arch=$(deb_arch "$triplet"); then
			echo "deps.sh: no Debian packages known for the cross compiler" \
				"'$triplet-': its toolchain's sysroot must hold libyaml (and elfutils" \
				"unless NO_ELFUTILS=1)" >&2
			continue
		fi
		case "$group" in
		cross-elfutils-*) want="$want libelf-dev:$arch libdw-dev:$arch" ;;
		*) want="$want gcc-$triplet libc6-dev-$arch-cross libyaml-dev:$arch libjson-c-dev:$arch" ;;
		esac
		continue
		;;
	esac
	var="pkgs_$group"
	if [ -z "${!var+x}" ]; then
		echo "deps.sh: unknown group '$group'" >&2
		exit 2
	fi
	want="$want ${!var}"
	case "$group" in check | report) need_npm=1 ;; esac
done

install_npm() {
	local top
	top=$(cd "$(dirname "$0")/.." && pwd)
	[ -d "$top/build/npm/node_modules/playwright-core" ] && return 0
	if ! command -v npm >/dev/null; then
		missing_node="nodejs npm"
		return 0
	fi
	echo "hetrace: installing npm packages into build/npm: $npm_pkgs"
	mkdir -p "$top/build/npm"
	# shellcheck disable=SC2086
	npm install --prefix "$top/build/npm" --no-audit --no-fund --no-save \
		--loglevel=error $npm_pkgs >/dev/null
}
missing_node=""
[ -n "${need_npm:-}" ] && install_npm
want="$want $missing_node"

missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "hetrace: missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "hetrace: run as root, or install them: apt-get install -y$missing" >&2
	exit 1
fi
echo "hetrace: installing them: apt-get update && apt-get install -y$missing"
export DEBIAN_FRONTEND=noninteractive
for p in $missing; do
	case "$p" in *:*) ;; *) continue ;; esac
	arch=${p##*:}
	if [ "$arch" != "$(dpkg --print-architecture)" ] &&
		! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "hetrace: adding the Debian architecture $arch (dpkg --add-architecture $arch)"
		dpkg --add-architecture "$arch"
	fi
done
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "hetrace: installed:$missing"
[ -n "$missing_node" ] && install_npm
exit 0
