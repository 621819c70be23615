#!/bin/sh
# chatcli installer: picks the binary for this OS/arch/libc, verifies it against SHA256SUMS and installs it
# atomically to $CHATCLI_INSTALL_DIR (default ~/.local/bin).
#
#   curl -fsSL https://github.com/chatcli/chatcli/releases/latest/download/install.sh | sh
#   sh install.sh [--version X] [--from DIR] [--target T] [--dir DIR]
#
# CHATCLI_RELEASE_URL: a base URL holding latest/ and <version>/ folders of release artifacts (a mirror);
# unset → the GitHub releases of chatcli. --from DIR: install from a local folder instead of downloading
# (either such a base folder, or one folder of artifacts like dist/release).
# POSIX sh only: this must run under dash and busybox sh.
set -eu

DEFAULT_RELEASE_URL="https://github.com/chatcli/chatcli/releases"

say() { printf '%s\n' "$*"; }
die() {
  printf 'chatcli install: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<'EOF'
Usage: install.sh [options]
  --version X   install version X (default: the latest release)
  --from DIR    install from a local directory of release artifacts instead of downloading
  --target T    force the target (linux-x64, linux-x64-musl, linux-arm64, darwin-x64, darwin-arm64, windows-x64)
  --dir DIR     install into DIR (default: $CHATCLI_INSTALL_DIR or ~/.local/bin)
  -h, --help    show this help
Environment: CHATCLI_RELEASE_URL (release base URL), CHATCLI_INSTALL_DIR (install directory).
EOF
}

version=""
from=""
target=""
install_dir="${CHATCLI_INSTALL_DIR:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || die "--version needs a value"; version=$2; shift 2 ;;
    --version=*) version=${1#*=}; shift ;;
    --from) [ $# -ge 2 ] || die "--from needs a directory"; from=$2; shift 2 ;;
    --from=*) from=${1#*=}; shift ;;
    --target) [ $# -ge 2 ] || die "--target needs a value"; target=$2; shift 2 ;;
    --target=*) target=${1#*=}; shift ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a directory"; install_dir=$2; shift 2 ;;
    --dir=*) install_dir=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
version=${version#v}

detect_target() {
  os=$(uname -s 2>/dev/null || echo unknown)
  arch=$(uname -m 2>/dev/null || echo unknown)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die "unsupported operating system: $os (supported: Linux, macOS, Windows)" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported CPU architecture: $arch (supported: x86_64, arm64)" ;;
  esac
  # Apple Silicon running this shell under Rosetta reports x86_64; prefer the native build.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  suffix=""
  if [ "$os" = linux ] && is_musl; then suffix="-musl"; fi
  target="$os-$arch$suffix"
}

is_musl() {
  for f in /lib/ld-musl-*; do
    [ -e "$f" ] && return 0
  done
  if command -v ldd >/dev/null 2>&1; then
    case "$(ldd --version 2>&1 || true)" in
      *musl*) return 0 ;;
    esac
  fi
  return 1
}

[ -n "$target" ] || detect_target
case "$target" in
  linux-x64 | linux-x64-musl | linux-arm64 | darwin-x64 | darwin-arm64) file="chatcli-$target"; exe=chatcli ;;
  windows-x64) file="chatcli-$target.exe"; exe=chatcli.exe ;;
  *) die "no chatcli build for $target (supported: linux-x64, linux-x64-musl, linux-arm64, darwin-x64, darwin-arm64, windows-x64); build from source: https://github.com/chatcli/chatcli" ;;
esac

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | awk '{print $1}'
  else
    die "neither sha256sum nor shasum is available, so the download cannot be verified; install one (coreutils / perl)"
  fi
}

# Fetch one release file into $2, from --from or from the release URL.
fetch() {
  if [ -n "$from" ]; then
    [ -f "$src/$1" ] || die "$src/$1 not found"
    cp "$src/$1" "$2"
  elif command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$src/$1" || die "download failed: $src/$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$src/$1" || die "download failed: $src/$1"
  else
    die "neither curl nor wget is available to download $src/$1"
  fi
}

folder=${version:-latest}
if [ -n "$from" ]; then
  [ -d "$from" ] || die "--from: $from is not a directory"
  if [ -d "$from/$folder" ]; then
    src="$from/$folder"
  elif [ -z "$version" ]; then
    src="$from"
  else
    die "--from: $from has no $version/ folder"
  fi
elif [ -n "${CHATCLI_RELEASE_URL:-}" ]; then
  src="${CHATCLI_RELEASE_URL%/}/$folder"
elif [ -n "$version" ]; then
  src="$DEFAULT_RELEASE_URL/download/v$version"
else
  src="$DEFAULT_RELEASE_URL/latest/download"
fi

work=$(mktemp -d 2>/dev/null || mktemp -d -t chatcli) || die "cannot create a temporary directory"
tmp_dest=""
cleanup() {
  rm -rf "$work"
  if [ -n "$tmp_dest" ]; then rm -f "$tmp_dest"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "chatcli: installing ${version:-the latest release} for $target from $src"
fetch SHA256SUMS "$work/SHA256SUMS"
fetch "$file" "$work/$file"

expected=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1; exit }' "$work/SHA256SUMS")
[ -n "$expected" ] || die "SHA256SUMS has no entry for $file; refusing to install"
actual=$(sha256_of "$work/$file")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for $file: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed"
fi

if [ -z "$install_dir" ]; then
  [ -n "${HOME:-}" ] || die "HOME is not set; pass --dir or set CHATCLI_INSTALL_DIR"
  install_dir="$HOME/.local/bin"
fi
mkdir -p "$install_dir" || die "cannot create $install_dir"
dest="$install_dir/$exe"
# The temp file lives in the target directory so the final mv is an atomic rename.
tmp_dest="$install_dir/.$exe.install.$$"
cp "$work/$file" "$tmp_dest" || die "cannot write to $install_dir"
chmod 755 "$tmp_dest"
mv -f "$tmp_dest" "$dest" || die "cannot replace $dest"
tmp_dest=""

installed=$("$dest" --version 2>/dev/null || true)
say "chatcli: installed ${installed:-$file} to $dest"

case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *)
    case "$(basename "${SHELL:-sh}")" in
      zsh) rc="${HOME:-~}/.zshrc" ;;
      bash) rc="${HOME:-~}/.bashrc" ;;
      fish) rc="" ;;
      *) rc="${HOME:-~}/.profile" ;;
    esac
    say ""
    say "$install_dir is not on your PATH. To add it:"
    if [ -n "$rc" ]; then
      say "  echo 'export PATH=\"$install_dir:\$PATH\"' >> $rc && . $rc"
    else
      say "  fish_add_path $install_dir"
    fi
    ;;
esac
