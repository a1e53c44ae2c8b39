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
# Depends: is worked out from the libraries the binaries name (objdump's NEEDED, then dpkg -S for the package of each).
# libdbus-1 is opened at run time, so it is a Recommends.
#
# Options:
#   --bin-path DIR   take unotify and unotifyd from DIR instead of building them (built with --static-swift-stdlib:
#                    a binary that loads the toolchain's libraries is refused, as no package provides them)
#   --output DIR     where the .deb goes (default: .build/deb)
#   --debug          a debug build instead (statically linked too; only the link is redone after `swift build`),
#                    compressed with gzip -1: the package scripts/test makes for DebianPackageTests in seconds
# Environment: VERSION (default 0.1.0~git<date>.<commit>), SWIFT_BUILD_FLAGS (added to both swift build calls).
# Needs (besides Swift): dpkg-dev's dpkg-deb, gzip, binutils' strip; libcurl4-openssl-dev for the release build, and for
# a debug build whose static link compiles a command's main again
# (Foundation's networking archive links -lcurl). Takes about 8 minutes on 2 cores from a clean release build folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

bin_path=""
configuration=release
output="$root/.build/deb"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-path)
      [ -x "${2:-}/unotify" ] && [ -x "$2/unotifyd" ] || { echo "build.sh: --bin-path: no unotify and unotifyd in '${2:-}'" >&2; exit 64; }
      bin_path="$(cd "$2" && pwd)"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    --output) mkdir -p "$2"; output="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
  esac
done
if [ "$configuration" = release ] && [ -z "$bin_path" ] && ! ldconfig -p | grep -q 'libcurl.so '; then
  # Foundation's networking archive asks the linker for -lcurl: a static link needs the development symlink.
  echo "build.sh: a release build links Foundation statically, which needs libcurl.so: apt install libcurl4-openssl-dev" >&2
  exit 1
fi
for tool in dpkg-deb dpkg gzip ldd objdump; do
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
  # Compiled as an ordinary build first, then only linked statically: an object compiled under
  # --static-swift-stdlib names the static archives' libraries (-lCoreFoundation, ...), and SwiftPM would reuse it for
  # the next ordinary build of the folder, whose link then fails. Compiled this way, both links work.
  bin_path="$(swift build -c "$configuration" "${static[@]}" --show-bin-path "${extra[@]}")"
  # Some objects are compiled again by the static builds all the same (Hummingbird's, which import FoundationEssentials
  # directly; a command's main after its modules changed), and they then ask the next ordinary link for the static
  # archives' libraries: remove every object that names one, so that the next ordinary build compiles those again
  # (about a minute) instead of failing to link. Done before the ordinary build too, for a folder whose static build
  # stopped half-way, and on any exit of the static builds. (grep finding none, the usual case, is not a failure:
  # xargs would exit 123.)
  remove_static_objects() {
    [ -d "$bin_path" ] || return 0  # a new clone: nothing built yet
    find "$bin_path" -name '*.o' -print0 \
      | { xargs -0 -r grep -l -Z -a -F -e '-lCoreFoundation' -e '-l_FoundationCShims' -e '-l_FoundationCollections' \
            -e '-l_CFURLSessionInterface' || true; } \
      | xargs -0 -r rm -f
  }
  remove_static_objects
  swift build -c "$configuration" --product unotify "${extra[@]}" >&2
  swift build -c "$configuration" --product unotifyd "${extra[@]}" >&2
  trap remove_static_objects EXIT
  swift build -c "$configuration" "${static[@]}" --product unotify "${extra[@]}" >&2
  swift build -c "$configuration" "${static[@]}" --product unotifyd "${extra[@]}" >&2
  remove_static_objects
  trap - EXIT
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

# Depends: the package of each shared library the binaries name (NEEDED; what those load in turn is their packages'
# business), found through the paths ldd resolves.
depends=()
resolved="$(ldd "$package/usr/bin/unotify" "$package/usr/bin/unotifyd")"
# dpkg knows a file by the path its package installed: /lib/... or /usr/lib/... (merged /usr), so both are asked.
owner_of() { { dpkg -S "$1" 2>/dev/null || dpkg -S "$(readlink -f "$1")" 2>/dev/null || true; } | head -1 | cut -d: -f1; }
while read -r needed; do
  library="$(awk -v name="$needed" '$1 == name && $2 == "=>" { print $3; exit }' <<< "$resolved")"
  case "$needed" in
    ld-linux*) owner=libc6 ;;  # the dynamic loader: ldd shows it without "=>"
    *) owner="$([ -n "$library" ] && owner_of "$library")" || true ;;
  esac
  if [ -z "$owner" ]; then
    echo "build.sh: $needed comes from no Debian package (a Swift runtime library? build with --static-swift-stdlib)" >&2
    exit 1
  fi
  depends+=("$owner")
done < <(objdump -p "$package/usr/bin/unotify" "$package/usr/bin/unotifyd" | awk '$1 == "NEEDED" { print $2 }' | sort -u)
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
