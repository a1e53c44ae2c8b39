#!/usr/bin/env bash
# Builds a Debian package of unotify and unotifyd: packaging/deb/build.sh [--debug] [--bin-path DIR] [--output DIR]
#
#   /usr/bin/unotify, /usr/bin/unotifyd     release build, the Swift runtime and Foundation linked statically
#                                           (--static-swift-stdlib), so the machine needs no Swift toolchain
#   /usr/lib/systemd/user/unotifyd.{socket,service}
#                                           packaging/systemd's units, starting /usr/bin/unotifyd; each user turns
#                                           them on with `systemctl --user enable --now unotifyd.socket`
#   /usr/share/man/man1/unotify.1.gz, unotifyd.1.gz
#                                           from the commands' argument parsers, by swift-argument-parser's
#                                           generate-manual tool (the engine of its GenerateManual plugin)
#   bash, zsh and fish completions          from `unotify --generate-completion-script <shell>`
#
# Depends: is worked out from the binaries' shared libraries (ldd, then dpkg -S for the package of each).
# libdbus-1 is opened at run time, so it is a Recommends.
#
# Options:
#   --bin-path DIR   take unotify and unotifyd from DIR instead of building them (built with --static-swift-stdlib:
#                    a binary that loads the toolchain's libraries is refused, as no package provides them)
#   --output DIR     where the .deb goes (default: .build/deb)
#   --debug          a debug build instead (statically linked too; only the link is redone after `swift build`),
#                    compressed with gzip -1: the package scripts/test makes for DebianPackageTests in seconds
# Environment: VERSION (default 0.1.0~git<date>.<commit>), SWIFT_BUILD_FLAGS (added to both swift build calls).
# Takes about 8 minutes on 2 cores from a clean release build folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

bin_path=""
configuration=release
output="$root/.build/deb"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-path) bin_path="$(cd "$2" && pwd)"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    --output) mkdir -p "$2"; output="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
  esac
done
for tool in dpkg-deb dpkg gzip ldd; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is needed (Debian's dpkg, gzip, libc-bin)" >&2; exit 1; }
done

# shellcheck disable=SC2206
extra=(${SWIFT_BUILD_FLAGS:-})
# With --static-swift-stdlib, SwiftPM 6.3 links Foundation's static archives but not what they need in turn
# (undefined swift_u* ICU symbols): name them, in dependency order.
static=(--static-swift-stdlib)
for library in CoreFoundation _FoundationCollections _FoundationCShims _FoundationICU stdc++; do
  static+=(-Xlinker "-l$library")
done
if [ -z "$bin_path" ]; then
  swift build -c "$configuration" "${static[@]}" --product unotify "${extra[@]}" >&2
  swift build -c "$configuration" "${static[@]}" --product unotifyd "${extra[@]}" >&2
  bin_path="$(swift build -c "$configuration" "${static[@]}" --show-bin-path "${extra[@]}")"
  if ldd "$bin_path/unotify" | grep -q libswiftCore; then
    echo "build.sh: $bin_path/unotify still loads libswiftCore" >&2; exit 1
  fi
fi
# swift-argument-parser's man page generator, built from the package's own checkout (no network).
swift build --product generate-manual "${extra[@]}" >&2 \
  || swift build --target generate-manual "${extra[@]}" >&2
generate_manual="$(swift build --show-bin-path "${extra[@]}")/generate-manual"
[ -x "$generate_manual" ] || { echo "build.sh: generate-manual was not built at $generate_manual" >&2; exit 1; }

version="${VERSION:-0.1.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short HEAD)}"
architecture="$(dpkg --print-architecture)"
name=openusernotifications
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
package="$stage/${name}_${version}_${architecture}"

install -Dm755 "$bin_path/unotify" "$package/usr/bin/unotify"
install -Dm755 "$bin_path/unotifyd" "$package/usr/bin/unotifyd"
strip --strip-unneeded "$package/usr/bin/unotify" "$package/usr/bin/unotifyd" 2>/dev/null || true

# systemd user units: the packaged daemon is /usr/bin/unotifyd.
install -d "$package/usr/lib/systemd/user"
sed 's|^ExecStart=%h/.local/bin/unotifyd|ExecStart=/usr/bin/unotifyd|' packaging/systemd/unotifyd.service \
  > "$package/usr/lib/systemd/user/unotifyd.service"
install -m644 packaging/systemd/unotifyd.socket "$package/usr/lib/systemd/user/unotifyd.socket"
grep -q '^ExecStart=/usr/bin/unotifyd$' "$package/usr/lib/systemd/user/unotifyd.service" \
  || { echo "build.sh: unotifyd.service's ExecStart changed; update the sed above" >&2; exit 1; }

# Man pages, one per command (subcommands are sections of it).
install -d "$package/usr/share/man/man1" "$stage/man"
for command in unotify unotifyd; do
  "$generate_manual" "$package/usr/bin/$command" --output-directory "$stage/man" --section 1 \
    --authors "OpenUserNotifications contributors" --date "$(git log -1 --format=%cd --date=short)"
done
for page in "$stage"/man/*.1; do
  gzip -9n < "$page" > "$package/usr/share/man/man1/$(basename "$page").gz"
done
[ -f "$package/usr/share/man/man1/unotify.1.gz" ] || { echo "build.sh: no unotify.1 was generated" >&2; exit 1; }

# Shell completions, where each shell looks for packaged ones.
completions=(
  "bash:usr/share/bash-completion/completions/unotify"
  "zsh:usr/share/zsh/vendor-completions/_unotify"
  "fish:usr/share/fish/vendor_completions.d/unotify.fish"
)
for entry in "${completions[@]}"; do
  shell="${entry%%:*}" path="$package/${entry#*:}"
  install -d "$(dirname "$path")"
  "$package/usr/bin/unotify" --generate-completion-script "$shell" > "$path"
  [ -s "$path" ] || { echo "build.sh: empty $shell completion script" >&2; exit 1; }
done

install -d "$package/usr/share/doc/$name"
gzip -9n < README.md > "$package/usr/share/doc/$name/README.md.gz"

# Depends: the package of each shared library the binaries load.
depends=()
while read -r library; do
  owner="$(dpkg -S "$(readlink -f "$library")" 2>/dev/null | head -1 | cut -d: -f1)" \
    || owner="$(dpkg -S "$library" 2>/dev/null | head -1 | cut -d: -f1)" || true
  if [ -z "$owner" ]; then
    echo "build.sh: $library comes from no Debian package (a Swift runtime library? build with --static-swift-stdlib)" >&2
    exit 1
  fi
  depends+=("$owner")
done < <(ldd "$package/usr/bin/unotify" "$package/usr/bin/unotifyd" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
depends_line="$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')"

install -d "$package/DEBIAN"
cat > "$package/DEBIAN/control" <<EOF
Package: $name
Version: $version
Architecture: $architecture
Maintainer: OpenUserNotifications contributors <maintainers@users.noreply.github.com>
Installed-Size: $(du -sk "$package/usr" | cut -f1)
Depends: $depends_line
Recommends: libdbus-1-3
Suggests: dunst | notification-daemon | xfce4-notifyd
Section: utils
Priority: optional
Homepage: https://github.com/openusernotifications/OpenUserNotifications
Description: Apple's UserNotifications on Linux: the unotify tool and the unotifyd daemon
 unotify schedules, lists and removes notifications from the command line;
 unotifyd delivers them per user (systemd user units with socket activation,
 enabled with: systemctl --user enable --now unotifyd.socket).
EOF

mkdir -p "$output"
deb="$output/${name}_${version}_${architecture}.deb"
compression=()
[ "$configuration" = debug ] && compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$package" "$deb" >&2
echo "$deb"
