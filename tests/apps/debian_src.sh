# Fetching a Debian source package for the tests of real programs: sourced, never
# run. deb_src PKG prints the directory of PKG's unpacked source (Debian's patches
# applied), fetching it with `apt-get source` the first time and keeping it under
# build/apps-src/PKG (never in the tree); later runs reuse it without the network.
# When the deb-src lists are missing, a deb-src entry is added beside each deb one
# of Debian's (as root) and `apt-get update` run. On failure it prints why on stderr
# and returns 1: the caller says SKIP.
DEB_SRC_CACHE="$ROOT/build/apps-src"

# Add deb-src beside Debian's deb entries: one-line lists and deb822 .sources files.
deb_src_enable() {
	local f changed=false
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		if grep -qE '^deb [^#]*debian' "$f" && ! grep -qE '^deb-src ' "$f"; then
			sed -i -E 's/^deb (.*debian.*)$/deb \1\ndeb-src \1/' "$f" && changed=true
		fi
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		if grep -qiE '^URIs:.*debian' "$f" && grep -qE '^Types: *deb *$' "$f"; then
			sed -i -E 's/^Types: *deb *$/Types: deb deb-src/' "$f" && changed=true
		fi
	done
	$changed
}

deb_src() {
	local pkg=$1 dir="$DEB_SRC_CACHE/$1"
	if [ -f "$dir/.fetched" ]; then
		find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n 1
		return 0
	fi
	if ! command -v dpkg-source >/dev/null; then
		echo "dpkg-source is missing (make deps installs dpkg-dev)" >&2
		return 1
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	if [ -z "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
		if [ "$(id -u)" != 0 ]; then
			echo "no deb-src entry in the apt sources, and adding one needs root" >&2
			return 1
		fi
		deb_src_enable
		apt-get update -qq >"$dir/update.log" 2>&1
	fi
	if ! (cd "$dir" && apt-get source "$pkg" >fetch.log 2>&1); then
		echo "apt-get source $pkg failed: $(grep -E '^E:' "$dir/fetch.log" | head -n 2 | tr '\n' ' ')" >&2
		return 1
	fi
	local src
	src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	if [ -z "$src" ]; then
		echo "apt-get source $pkg unpacked nothing" >&2
		return 1
	fi
	touch "$dir/.fetched"
	echo "$src"
}
