/**
 * The table of the differential test against real bash: scripts over the same file fixtures,
 * grouped by what they exercise. Generated compactly: a few families are crossed with inputs.
 */
export const FIXTURES: Readonly<Record<string, string>> = {
  'words.txt': 'banana\napple\ncherry\napple\ndate\n',
  'nums.txt': '10\n2\n33\n4\n2\n',
  'data.csv': 'name,qty,price\nwidget,3,2.50\ngadget,10,1.25\nwidget,1,2.50\n',
  'notes.md': '# Title\nTODO: one\nsome text\nTODO: two\n',
  'empty.txt': '',
  'spaces.txt': '  lead\ttab\nmulti   space  \n',
  'a.txt': 'x\ny\nz\n',
  'b.txt': 'x\nz\nw\n',
};

const quoting = [
  'echo hello world', 'echo "a  b"   c', "echo 'single $HOME' \"x\"", 'echo a\\ b', 'echo "tab\\tnot"', "echo $'tab\\tyes'",
  'echo -n x; echo y', 'echo -e "a\\nb"', 'echo -e "a\\c" ; echo', 'echo "\\$x \\"q\\" \\\\"', "echo ''", 'echo "" | wc -c',
  'x="a b"; echo $x; echo "$x"', 'x="  sp  "; echo "[$x]" [$x]', "echo 'it'\"'\"'s'", 'echo "${undefined}end"', 'echo a"b"\'c\'d',
  'x=\'$y\'; y=1; echo "$x"', 'echo "$(echo "in ner")"', 'echo `echo back` tick', 'echo "a\nb"', 'printf "%s\\n" "a b" c',
];

const expansions = [
  'x=abc; echo ${#x} ${x:-d} ${u:-d} ${u-d} ${x:+set} ${u:+set}', 'x=; echo "[${x:-d}]" "[${x-d}]"', 'echo ${u:=new}; echo $u',
  'p=path/to/file.tar.gz; echo ${p#*/} ${p##*/} ${p%.*} ${p%%.*}', 'v=aXbXc; echo ${v/X/-} ${v//X/-}', 'v=hello; echo ${v/l*/L}',
  'echo $((1+2*3)) $(( (1+2)*3 )) $((10/3)) $((10%3)) $((-7/2)) $((2**8))', 'i=5; echo $((i*2)) $((i-10)) $((i>3)) $((i==5 && i<4))',
  'a=3; b=4; echo $((a*a + b*b))', 'echo $((0x10)) $((1<<3)) $((7&3)) $((5|2)) $((5^1))', 'n=0; n=$((n+1)); n=$((n+1)); echo $n',
  'set -- a b c; echo $# $1 $3 "$@"', 'set -- "a b" c; for x in "$@"; do echo "<$x>"; done', 'set -- "a b" c; for x in $@; do echo "<$x>"; done',
  'set -- x y; shift; echo $1 $#', 'f() { echo $#:$1:$2; }; f "1 2" 3', 'echo $?; false; echo $?; true; echo $?',
  'x=$(printf "a\\n\\n\\n"); echo "[$x]"', 'echo $(echo a; echo b)', 'echo "$(echo a; echo b)"', 'x=$(echo "  padded  "); echo "[$x]"',
  'echo {a,b,c}', 'echo x{1..4}y', 'echo {c..a}', 'echo {1..10..3}', 'echo {a,b}{1,2}', 'echo pre-{x,y}-post', 'echo {05..10..5}',
  'echo *.txt', 'echo *.md *.csv', 'ls *.txt', 'cat ?.txt', 'echo [ab].txt', 'echo [!a]*.txt', 'echo "*.txt"', 'echo \\*.txt', 'echo nomatch*',
  'for f in *.txt; do echo "<$f>"; done', 'echo ./*.md', "x='*.csv'; echo $x; echo \"$x\"", 'echo *', 'wc -l *.md', 'cat [n]*.md | head -n 1',
  'echo "{a,b}"', 'echo {a}', 'echo {}', 'echo a{,b}', 'x=1; echo {$x,2}',
  'a=(one two three); echo ${a[0]} ${a[2]} ${#a[@]}', 'a=(x y); a[5]=z; echo "${a[@]}"', 'a=(1 2 3); echo "${a[*]}"',
  'a=("p q" r); for e in "${a[@]}"; do echo "[$e]"; done', 'a=(x); a+=(y z); echo ${#a[@]} ${a[-1]}', 'a=(m n); echo $a ${a}',
  'IFS=, read x y <<< "1,2,3"; echo "$x|$y"', 'IFS=,; x="a,b,,c"; for i in $x; do echo "[$i]"; done', 'IFS=:; x="p:q"; set -- $x; echo $# $2',
  'IFS=,; x=",a,"; for i in $x; do echo "[$i]"; done', 'IFS=", "; x="a, b,c"; for i in $x; do echo "[$i]"; done', 'IFS=,; e=; set -- $e; echo $#',
  'x="a  b"; IFS=; for i in $x; do echo "[$i]"; done', 'IFS=-; echo $(echo a-b)', 'line="k=v"; IFS== read k v <<< "$line"; echo "$k $v"', 'read a b <<< "  one two three "; echo "[$a][$b]"', 'read -a arr <<< "p q r"; echo ${arr[1]}',
  'printf "%d-%s\\n" 1 a 2 b', 'printf "%5s|%-5s|\\n" ab cd', 'printf "%03d %x %X %o\\n" 7 255 255 8', 'printf "%.2f %e\\n" 3.14159 12345.678',
  'printf "%s\\n"', 'printf "%c%c\\n" abc def', 'printf "%b\\n" "a\\tb"', 'printf -v v "%s:%s" a b; echo $v', 'printf "%%\\n"',
];

const files = ['words.txt', 'nums.txt', 'data.csv', 'notes.md', 'spaces.txt'];
const perFile = (f: string) => [
  `cat ${f}`, `cat ${f} | wc -l`, `wc -l < ${f}`, `grep -c a ${f}`, `grep -n a ${f}`, `grep -v a ${f}`, `grep -i T ${f}`, `head -n 2 ${f}`,
  `tail -n 2 ${f}`, `sort ${f}`, `sort -r ${f}`, `sort ${f} | uniq -c`, `sort -u ${f}`, `tr a-z A-Z < ${f}`, `tr -d a < ${f}`, `rev ${f}`,
  `nl ${f}`, `cut -c1-3 ${f}`, `sed 's/a/_/g' ${f}`, `sed -n '2p' ${f}`, `sed '1d' ${f}`, `awk '{print NF}' ${f}`, `awk 'END {print NR}' ${f}`,
  `awk '{print $1}' ${f}`, `base64 ${f}`, `sha256sum ${f}`, `paste -s -d, ${f}`, `cat ./${f} | head -n 1`,
];

const pipelines = [
  ...files.flatMap(perFile),
  'sort -n nums.txt', 'sort -rn nums.txt | head -n 1', 'sort nums.txt | uniq', 'cut -d, -f1 data.csv | sort | uniq -c', 'cut -d, -f2,3 data.csv',
  'awk -F, \'NR > 1 {s += $2 * $3} END {printf "%.2f\\n", s}\' data.csv', 'awk -F, \'NR > 1 {q[$1] += $2} END {print q["widget"], q["gadget"]}\' data.csv',
  "awk '/TODO/ {print NR \": \" $2}' notes.md", "awk -F, '$2 > 2' data.csv", "awk '{ $1 = \"X\"; print }' words.txt", 'awk \'BEGIN { print length("abc"), substr("hello", 2, 3), index("abc", "c") }\'',
  'awk \'BEGIN { s = "a-b-c"; n = split(s, p, "-"); print n, p[3]; print toupper("x") tolower("Y") }\'', 'awk \'{ gsub(/a/, "A"); print }\' words.txt',
  "awk -v k=2 '{ print $1 * k }' nums.txt", "awk 'NR % 2 == 0' words.txt", "awk '{ n[$1]++ } END { for (w in n) if (n[w] > 1) print w }' words.txt",
  "sed -n '/TODO/p' notes.md", "sed 's/^\\(.\\)\\(.*\\)$/\\2\\1/' words.txt", "sed -E 's/([a-z]+)/<\\1>/' words.txt", "sed '2,3d' words.txt", "sed '$d' words.txt",
  "sed 's/a/A/2' words.txt", "sed -n '$p' words.txt", "sed 'y/abc/ABC/' words.txt", "sed '/apple/a after' words.txt", "sed '2q' words.txt",
  'grep -o an words.txt', 'grep -E "^(a|b)" words.txt', 'grep -F . data.csv | head -n 2', 'grep -q apple words.txt && echo found', 'grep nomatch words.txt; echo $?',
  'comm a.txt b.txt', 'comm -12 a.txt b.txt', 'sort b.txt | comm -3 a.txt -', 'diff a.txt b.txt', 'diff a.txt a.txt && echo same', 'diff -q a.txt b.txt',
  'paste a.txt b.txt', 'paste -d: a.txt b.txt', 'paste -s a.txt', 'echo abc | rev', 'echo hello | base64 | base64 -d', 'printf abc | sha256sum',
  'basename /x/y/z.txt .txt', 'basename a/b/', 'dirname /x/y/z.txt', 'dirname z', 'dirname /z',
  'seq 5 | paste -sd+', 'seq 3 | xargs echo', 'seq 6 | xargs -n 2 echo', 'printf "a\\nb\\n" | xargs -I{} echo "<{}>"', 'echo a b c | tr " " "\\n" | sort -r',
  'cat words.txt | sort | uniq -c | sort -rn | head -n 1', 'seq 10 | grep 1 | wc -l', 'seq 100 | tail -n 3', 'seq 2 2 10', 'seq 5 -1 3',
  'cat empty.txt | wc -l', 'wc -c < data.csv', 'wc a.txt', 'wc -l a.txt words.txt', 'echo hi | wc', 'echo hi | wc -lw', 'cat a.txt | wc -l a.txt -', 'wc -w notes.md', 'echo x | cat - a.txt', 'cat a.txt b.txt | sort | uniq -c',
  'echo one > out.txt; echo two >> out.txt; cat out.txt', '{ echo a; echo b; } > g.txt; cat g.txt', 'echo err 2>/dev/null', 'echo e >&2 2>/dev/null; echo ok',
  'cat < a.txt | head -n 1', 'tee t.txt < a.txt | wc -l; cat t.txt', 'cat <<EOF\nx=$((1+1))\nEOF', "cat <<'EOF'\n$HOME\nEOF", 'grep -c x <<< "x x"',
  'cp a.txt c.txt; cat c.txt', 'mv a.txt m.txt; cat m.txt; cat a.txt 2>/dev/null || echo gone', 'rm b.txt; cat b.txt 2>/dev/null; echo $?', 'touch new.txt; wc -c < new.txt',
  'sed -i "s/x/X/" a.txt; cat a.txt', 'date -u -d @86400 +%F', 'date -u -d @0 "+%Y %j %a %b %H:%M:%S"',
];

const statuses = [
  'true; echo $?', 'false; echo $?', '! true; echo $?', '! false; echo $?', 'true && echo y || echo n', 'false && echo y || echo n',
  'false || false; echo $?', 'true | false; echo $?', 'false | true; echo $?', 'set -o pipefail; true | false | true; echo $?',
  'x=$(false); echo $?', 'x=$(exit 7); echo $?', 'x=$(true); echo $?', 'x=$(exit 2) y=3; echo $? $y', '$(exit 4); echo $?',
  'x=`exit 3`; echo $?', 'x=${u:-$(exit 5)}; echo $?', 'echo $(exit 3); echo $?', '(exit 9); echo $?', '(false); echo $?',
  'f() { return 3; }; f; echo $?', 'f() { false; }; f; echo $?', 'f() { :; }; f; echo $?', 'exit 3; echo no', '(exit 3) && echo no || echo yes',
  'if false; then :; fi; echo $?', 'if false; then :; else false; fi; echo $?', 'while false; do :; done; echo $?', 'for i in; do :; done; echo $?',
  'case x in y) false;; esac; echo $?', '[ 1 -eq 1 ]; echo $?', '[ a = b ]; echo $?', '[[ -z "" ]]; echo $?', 'test 3 -gt 5; echo $?',
  'grep -q zzz words.txt; echo $?', 'cat nosuch.txt 2>/dev/null; echo $?', 'false; x=1; echo $?', 'exit 256', 'exit 300', 'exit -1',
  'echo $((1/1)); echo $?', 'x=1; x=$((x+1)); echo $?', 'diff a.txt b.txt > /dev/null; echo $?', 'cmp_missing=1; echo ok',
];

const errexit = [
  'set -e; false; echo no', 'set -e; true; echo yes', 'set -e; false || true; echo yes', 'set -e; false && true; echo yes', 'set -e; true && false; echo no',
  'set -e; if false; then :; fi; echo yes', 'set -e; while false; do :; done; echo yes', 'set -e; ! true; echo yes', 'set -e; ! false; echo yes',
  'set -e; x=$(false); echo no', 'set -e; x=$(false; echo ok); echo "$x"', 'set -e; false | true; echo yes', 'set -e; true | false; echo no',
  'set -eo pipefail; false | true; echo no', 'set -e; (false); echo no', 'set -e; (false && true); echo no', 'set -e; { false && true; }; echo yes',
  'set -e; f() { false; echo in; }; f; echo no', 'set -e; f() { false; echo in; }; f || echo caught', 'set -e; f() { false; echo in; }; if f; then echo t; fi',
  'set -e; for i in 1 2; do echo $i; false; done; echo no', 'set -e; [[ 1 == 2 ]]; echo no', 'set -e; [ 1 = 2 ] || echo alt; echo yes',
  'set -e; grep -q zzz words.txt; echo no', 'set -e; grep zzz words.txt || echo none; echo yes', 'set -e; x=1 false; echo no',
  'set -e; set +e; false; echo yes', 'set -e; case a in a) false;; esac; echo no', 'set -e; echo $(false) ok', 'set -e; until true; do :; done; echo yes',
  'set -u; echo ${u:-d}', 'set -u; echo $u; echo no', 'set -u; (echo $u); echo "after $?"', 'set -u; x=1; echo $x', 'set -u; echo "$@"end',
  'echo ${u:?boom}; echo no', 'set -eu; f() { echo "$1"; }; f a',
];

const control = [
  'for i in 1 2 3; do echo $i; done', 'for i in a b; do for j in 1 2; do echo $i$j; done; done', 'for i in 1 2 3 4; do [ $i = 3 ] && break; echo $i; done',
  'for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done', 'i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done', 'i=3; until [ $i -eq 0 ]; do echo $i; i=$((i-1)); done',
  'for i in 1 2; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; done', 'for i in 1 2; do while true; do break 2; done; done; echo out',
  'case apple in a*) echo A;; b*) echo B;; esac', 'case z in a|b) echo ab;; *) echo other;; esac', 'case "x y" in "x y") echo quoted;; esac', 'case 5 in [0-9]) echo digit;; esac',
  'case "a*" in "a*") echo lit;; esac', 'case abc in "a"*) echo q;; esac', 'case abc in "a*") echo no;; *) echo other;; esac',
  '[[ abc == "a*" ]] || echo nolit', '[[ abc == a"*" ]] || echo no', 'p="a*"; [[ abc == $p ]] && echo var', '[[ "a*" == "a*" ]] && echo same', 'case x in \\x) echo esc;; esac',
  'if [ -f words.txt ]; then echo file; fi', 'if [ -f nosuch ]; then echo yes; else echo no; fi', 'if [[ -s empty.txt ]]; then echo s; else echo empty; fi',
  'x=5; if [ $x -gt 3 ] && [ $x -lt 10 ]; then echo in; fi', '[[ abc == a* ]] && echo glob', '[[ abc =~ ^a(b)c$ ]] && echo re', '[[ b > a ]] && echo gt',
  '[ -n "x" ] && [ -z "" ] && echo both', 'test "a" != "b" && echo ne', '[ ! -f nosuch ] && echo missing',
  'f() { echo "f:$1"; }; f one; f two', 'f() { local v=in; echo $v; }; v=out; f; echo $v', 'f() { g() { echo g; }; g; }; f; g',
  'fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5', 'f() { echo $#; }; f; f a; f a b',
  'sh -c \'echo "$1 $2"\' name p q', 'eval "x=1; echo \\$x"', 'cmd="echo hi"; $cmd', 'x=1; (x=2; echo $x); echo $x', 'x=1; { x=2; }; echo $x',
  'echo a | { read v; echo "got $v"; }', 'printf "1 2\\n3 4\\n" | while read a b; do echo $((a+b)); done', 'while read l; do echo "[$l]"; done < a.txt',
  'n=0; while read l; do n=$((n+1)); done < words.txt; echo $n', 'x=0; echo 1 | while read l; do x=1; done; echo $x', 'echo "a:b:c" | { IFS=: read p q r; echo $q; }',
  'for f in a.txt b.txt; do wc -l < $f; done', 'for w in $(cat words.txt); do echo -n "$w,"; done; echo', 'for w in "$(cat a.txt)"; do echo "[$w]"; done',
  'export X=1; sh -c \'echo $X\'', 'X=2 sh -c \'echo $X\'; echo "${X-unset}"', 'unset x; echo "${x-unset}"', 'x=1; unset x; echo "${x-gone}"',
  'env -i A=1 sh -c \'echo $A\'', 'command -v echo', 'command echo hi', 'timeout 5 echo t', 'f() { echo fn; }; command -v f',
];

/**
 * Scripts whose output is meant to differ from bash, with the reason. The test checks that
 * each still differs, so a fixed one has to leave this list.
 */
export const DELIBERATE: Readonly<Record<string, string>> = {
  'echo x > "f$(false)"; cat f; echo $?': 'a redirect target built from a failed substitution is never opened (fail closed); bash writes to "f"',
  'realpath words.txt': 'the virtual file store has no working directory: realpath answers /words.txt, bash the temp directory path',
  'mkdir d; ls': 'directories are implicit in the virtual file store: mkdir only checks fs_write, so ls does not show an empty d',
  'echo $$': 'there is no process: $$ is always 1',
  'diff -u a.txt b.txt': 'unified diff headers carry no timestamps (the store keeps none per line)',
  'echo a & wait': 'no background jobs: & is a syntax error naming the construct, not a silent sequential run',
  'x=abcdef; echo ${x:1:3}': 'substring expansion is not supported and says so',
  'cd / && echo ok': 'no working directory and no cd: exit 127 with a message',
  'echo $RANDOM | wc -c': 'RANDOM is not provided (an unset variable expands to nothing)',
};

/** Every script of the table, in order. */
export const SCRIPTS: readonly string[] = [...quoting, ...expansions, ...pipelines, ...statuses, ...errexit, ...control, ...Object.keys(DELIBERATE)];

