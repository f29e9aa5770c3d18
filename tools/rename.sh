#!/usr/bin/env bash
# Applies a rename map (default tools/renames.txt, which says the line
# forms) to the tree DIR (default: the tree this script is in):
#  - files: `git mv`, then every mention of the old path in the tracked
#    text files: the path from the top of the tree, the path below
#    include/ (<hetrace/x.h>) and, in files of the same folder, the bare
#    name (`#include "x.h"`);
#  - identifiers: whole words, in one pass (a NEW that is also an OLD is
#    not renamed twice); "struct OLD NEW" lines rename only the tag;
#  - then clang-format on the C files that changed (names change line
#    lengths).
# Text files: C, headers, assembly, shell, Python, Makefiles, *.mk,
# markdown. Prints what it did; exits 1 on a map it cannot apply (a line
# it does not understand, a file that is missing or already there).
# Usage: tools/rename.sh [MAP [DIR]]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
map=$(realpath "${1:-$here/renames.txt}")
top=$(cd "${2:-$here/..}" && git rev-parse --show-toplevel)
cd "$top"
changed=$(mktemp)
trap 'rm -f "$changed"' EXIT

# file renames first: the text edits below see the new paths
files=$(awk '!/^[[:space:]]*(#|$)/ && NF == 2 && $1 ~ /\// { print $1, $2 }' "$map")
while read -r old new; do
	[ -n "$old" ] || continue
	[ -e "$old" ] || { echo "rename.sh: $old: no such file" >&2; exit 1; }
	[ -e "$new" ] && { echo "rename.sh: $new: already exists" >&2; exit 1; }
	git mv "$old" "$new"
	echo "file: $old -> $new"
done <<<"$files"

git ls-files -z -- '*.c' '*.h' '*.S' '*.sh' '*.py' '*.md' '*.mk' \
	'Makefile' '*/Makefile' |
	MAP="$map" perl -0 -ne '
	BEGIN {
		our (%word, %tag, @path);
		local $/ = "\n";
		open(my $m, "<", $ENV{MAP}) or die "rename.sh: $ENV{MAP}: $!\n";
		while (<$m>) {
			s/#.*//;
			my @f = split;
			next unless @f;
			if (@f == 3 && $f[0] eq "struct") {
				$tag{$f[1]} = $f[2];
			} elsif (@f == 2 && $f[0] =~ m{/}) {
				push @path, [@f];
			} elsif (@f == 2 && $f[0] =~ /^\w+$/ && $f[1] =~ /^\w+$/) {
				$word{$f[0]} = $f[1];
			} else {
				die "rename.sh: $ENV{MAP}:$.: cannot read \"$_\"\n";
			}
		}
		my $alt = join "|", sort { length($b) <=> length($a) }
		    (keys %word, keys %tag);
		our $re = qr/(\bstruct\s+)?\b($alt)\b/;
	}
	chomp;
	my $file = $_;
	local $/;
	open(my $in, "<", $file) or die "rename.sh: $file: $!\n";
	my $text = <$in>;
	close($in);
	my $was = $text;
	my ($dir) = $file =~ m{^(.*)/} ? ($1) : ("");
	for my $p (@path) {
		my ($old, $new) = @$p;
		my @forms = ([$old, $new]);
		# <hetrace/x.h>: installed headers are named below include/
		my ($oinc) = $old =~ m{^include/(.*)};
		my ($ninc) = $new =~ m{^include/(.*)};
		push @forms, [$oinc, $ninc] if defined $oinc && defined $ninc;
		my ($odir, $obase) = $old =~ m{^(.*)/([^/]*)$};
		my ($ndir, $nbase) = $new =~ m{^(.*)/([^/]*)$};
		push @forms, [$obase, $nbase] if $odir eq $dir && $ndir eq $odir;
		for my $f (@forms) {
			my ($o, $n) = @$f;
			$text =~ s{(?<![\w./-])\Q$o\E(?!\w)}{$n}g;
		}
	}
	$text =~ s{$re}{
		my ($s, $w) = ($1 // "", $2);
		$s ne "" && exists $tag{$w} ? "$s$tag{$w}"
		    : exists $word{$w} ? "$s$word{$w}" : "$s$w"
	}ge;
	if ($text ne $was) {
		open(my $out, ">", $file) or die "rename.sh: $file: $!\n";
		print $out $text;
		close($out);
		print "$file\n";
	}
	' >"$changed"

n=$(wc -l <"$changed")
grep -E '\.(c|h)$' "$changed" | xargs -r clang-format -i
echo "rename.sh: $n files edited"
