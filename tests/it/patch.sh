#!/bin/bash
# apply_patch through the real binary against the mock: the patch attacks on
# the permission check (a git-quoted name, a header-only new file, a hunk
# count hiding a second header, both ends of a rename, a Codex Move to)
# are denied under --deny 'apply_patch(secret/**)' even in yolo mode, and
# a good patch (git rename, mode, CRLF; the Codex envelope) applies exactly;
# an index line's mode is not applied, a repeated Codex anchor is sought
# forward, and a patch applied twice says it is already applied.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

mkdir -p secret src
printf 'key\n' >secret/key
printf 'x\n' >secret/x
printf 'a\r\nb\r\n' >src/crlf.txt
printf 'one\ntwo\n' >src/mv.txt
printf 'ok\n' >ok.txt
printf '#!/bin/sh\necho a\n' >src/run.sh
chmod 755 src/run.sh
printf '[s]\n  k = 1\n[s]\n  k = 2\n[s]\n  k = 3\n' >src/c.ini

# One response a patch, so no patch is skipped after a refused one.
patches=(
  $'--- "a/secr\\145t/key"\n+++ "b/secr\\145t/key"\n@@ -1 +1 @@\n-key\n+PWNED\n'
  $'diff --git a/secret/new b/secret/new\nnew file mode 100755\n'
  $'--- a/ok.txt\n+++ b/ok.txt\n@@ -1,1 +1,50 @@\n-ok\n+ok2\n--- a/secret/x\n+++ b/secret/x\n@@ -1 +1 @@\n-x\n+PWNED\n'
  $'diff --git a/src/mv.txt b/secret/mv.txt\nrename from src/mv.txt\nrename to secret/mv.txt\n'
  $'*** Begin Patch\n*** Update File: src/mv.txt\n*** Move to: secret/moved.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'
  $'diff --git a/src/crlf.txt b/src/crlf2.txt\nold mode 100644\nnew mode 100755\nsimilarity index 50%\nrename from src/crlf.txt\nrename to src/crlf2.txt\n--- a/src/crlf.txt\n+++ b/src/crlf2.txt\n@@ -1,2 +1,3 @@\n a\n-b\n+B\n+C\n'
  $'*** Begin Patch\n*** Update File: src/mv.txt\n*** Move to: src/moved.txt\n@@\n one\n-two\n+TWO\n*** Add File: src/new.txt\n+fresh\n*** End Patch\n'
  $'diff --git a/src/run.sh b/src/run.sh\nindex 1a2b3c4..5d6e7f8 100644\n--- a/src/run.sh\n+++ b/src/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo a\n+echo b\n'
  $'*** Begin Patch\n*** Update File: src/c.ini\n@@ [s]\n-  k = 1\n+  k = 10\n@@ [s]\n-  k = 2\n+  k = 20\n*** End Patch\n'
  $'*** Begin Patch\n*** Update File: src/c.ini\n@@ [s]\n-  k = 1\n+  k = 10\n@@ [s]\n-  k = 2\n+  k = 20\n*** End Patch\n'
)
json='{"responses":['
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	json+=$(jq -c -n --arg p "$p" --arg id "toolu_p$i" \
	    '{tool_uses:[{id:$id,name:"apply_patch",input:{patch:$p}}],stop_reason:"tool_use"}')","
done
json+='{"text":"Done.","stop_reason":"end_turn"}]}'
scen=$(scenario patches <<<"$json")

mock_start "$scen"
"$TANDEM" -p "go" --permission-mode yolo --deny 'apply_patch(secret/**)' \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the run exits 0" [ $? -eq 0 ]
err_of() { jq -r "select(.type==\"tool_result\" and .id==\"$1\") | .is_error" "$T/out.jsonl"; }
for n in 1 2 3 4 5; do
	check "attack $n is refused" [ "$(err_of toolu_p$n)" = true ]
done
check "the quoted name did not reach secret/key" grep -qx key secret/key
check "no header-only file in secret/" [ ! -e secret/new ]
check "the hidden header did not reach secret/x" grep -qx x secret/x
check "ok.txt untouched by the miscounted patch" grep -qx ok ok.txt
check "the refusals name the deny rule or the parse error" \
    [ "$(jq -r 'select(.type=="tool_result" and (.id=="toolu_p1" or .id=="toolu_p3")) | .content' "$T/out.jsonl" | grep -c 'secret\|cannot be read')" -ge 2 ]
check "no rename into secret/" [ ! -e secret/mv.txt -a ! -e secret/moved.txt ]
check "the good git patch applied" [ "$(err_of toolu_p6)" = false ]
check "renamed with its CRLF endings kept" cmp -s src/crlf2.txt <(printf 'a\r\nB\r\nC\r\n')
check "the old name is gone" [ ! -e src/crlf.txt ]
check "the new mode is set" [ "$(stat -c %a src/crlf2.txt)" = 755 ]
check "the Codex envelope applied" [ "$(err_of toolu_p7)" = false ]
check "Move to moved the file" cmp -s src/moved.txt <(printf 'one\nTWO\n')
check "Add File created it" cmp -s src/new.txt <(printf 'fresh\n')
content_of() { jq -r "select(.type==\"tool_result\" and .id==\"$1\") | .content" "$T/out.jsonl"; }
check "the index line's 100644 applied" [ "$(err_of toolu_p8)" = false ]
check "the executable kept its x bit" [ "$(stat -c %a src/run.sh)" = 755 ]
check "the result says the index line's mode was not taken" \
    grep -q 'index line gives mode 100644.*mode was kept' <(content_of toolu_p8)
check "a repeated Codex anchor applied forward" [ "$(err_of toolu_p9)" = false ]
check "each hunk took the next [s]" \
    cmp -s src/c.ini <(printf '[s]\n  k = 10\n[s]\n  k = 20\n[s]\n  k = 3\n')
check "the same patch again is no error" [ "$(err_of toolu_p10)" = false ]
check "it says the patch is already applied" \
    grep -q 'the patch is already applied' <(content_of toolu_p10)
check "the mock found every tool_use answered" [ "$(mock_problems)" -eq 0 ]

finish
