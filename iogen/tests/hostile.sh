#!/bin/bash
# Hostile outputs, targets and plans against an iogen binary, one line per case: what was tried,
# the exit code, and the sha256 (first 16 hex digits) of every foreign file before -> after.
# Run by hand as root (loop devices, tmpfs, mount namespaces):
#   sudo bash iogen/tests/hostile.sh iogen/target/release/iogen
# Not part of `cargo test`; tests/safety.rs checks the same cases with assertions.
set -u
B=${1:?iogen binary}
W=$(mktemp -d /tmp/iogs-repro.XXXX); cd "$W" || exit 1
Q="--engine sync --warmup 0s --duration 1s --subinterval 250ms"
sha() { sha256sum "$1" | cut -c1-16; }
row() { printf '%s | exit %s | %s\n' "$1" "$2" "$3"; }
first_err() { grep -m1 -E '^Error|SKIP' err.txt | cut -c1-170; }

# 1. echo keep > k.txt; --csv k.txt
echo keep > k.txt; b=$(sha k.txt)
$B run --target t.dat --size 1MiB --warmup 0s --duration 1s --csv k.txt 2>err.txt; rc=$?
row "R1 --csv foreign k.txt" $rc "k.txt $b -> $(sha k.txt); t.dat created: $([ -e t.dat ] && echo yes || echo no); $(first_err)"
echo keep > k2.txt; b=$(sha k2.txt)
$B run --target t.dat --size 1MiB --warmup 0s --duration 1s --summary k2.txt 2>err.txt; rc=$?
row "R1b --summary foreign k2.txt" $rc "k2.txt $b -> $(sha k2.txt); $(first_err)"
# 2. --csv = --target (existing iogen target), also with --force
$B run --target t.dat --size 1MiB --warmup 0s --duration 1s --engine null 2>/dev/null
b=$(sha t.dat)
$B run --target t.dat --size 1MiB --read-pct 50 $Q --csv t.dat --force 2>err.txt; rc=$?
row "R2 --csv = --target t.dat (--force)" $rc "t.dat $b -> $(sha t.dat); $(first_err)"
# 3. --csv = plan file
printf 'read_pct\n100\n' > plan.csv; b=$(sha plan.csv)
$B plan plan.csv --target t.dat $Q --csv plan.csv --force 2>err.txt; rc=$?
row "R3 --csv = plan.csv (--force)" $rc "plan.csv $b -> $(sha plan.csv); $(first_err)"
# 4. --csv and --summary the same file
$B run --target t.dat $Q --csv same.csv --summary ./same.csv 2>err.txt; rc=$?
row "R4 --csv = --summary same.csv" $rc "same.csv created: $([ -e same.csv ] && echo yes || echo no); $(first_err)"
# 5. --csv = a mounted block device (ext4 on a loop device)
truncate -s 16M fs.img && mkfs.ext4 -q fs.img && L=$(losetup -f --show fs.img) && mkdir -p mnt && mount -o ro "$L" mnt
b=$(dd if="$L" bs=1M count=16 2>/dev/null | sha256sum | cut -c1-16)
$B run --target t.dat $Q --csv "$L" --force 2>err.txt; rc=$?
row "R5 --csv = mounted $L" $rc "device $b -> $(dd if="$L" bs=1M count=16 2>/dev/null | sha256sum | cut -c1-16); $(first_err)"
$B run --target t.dat $Q --summary "$L" --force 2>err.txt; rc=$?
row "R5b --summary = mounted $L" $rc "$(first_err)"
# 6. --target a mounted device with --allow-overwrite (mounted in this namespace)
$B run --target "$L" --allow-overwrite "$L" --read-pct 0 $Q 2>err.txt; rc=$?
row "R6 --target mounted $L --allow-overwrite" $rc "device -> $(dd if="$L" bs=1M count=16 2>/dev/null | sha256sum | cut -c1-16); $(first_err)"
umount mnt; losetup -d "$L"
# 7. mounted in another mount namespace
L=$(losetup -f --show fs.img); b=$(sha fs.img)
coproc NS { unshare --mount sh -c "mount -o ro $L $W/mnt && echo mounted && exec cat"; }
read -r line <&"${NS[0]}"
$B run --target "$L" --allow-overwrite "$L" --read-pct 0 $Q 2>err.txt; rc=$?
row "R7 --target $L mounted in another namespace ($line), --allow-overwrite" $rc "$(first_err)"
eval "exec ${NS[1]}>&-"; wait $NS_PID 2>/dev/null
# 8. held exclusively by another process
python3 -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print("held", flush=True); sys.stdin.read()' "$L" < <(sleep 8) > held.txt &
HP=$!; sleep 1
$B run --target "$L" --allow-overwrite "$L" --read-pct 0 $Q 2>err.txt; rc=$?
row "R8 --target $L held O_EXCL by pid $HP ($(cat held.txt)), --allow-overwrite" $rc "$(first_err)"
kill $HP 2>/dev/null; wait $HP 2>/dev/null
sync; row "R7/R8 image" - "fs.img $b -> $(sha fs.img)"
losetup -d "$L"
# 9. foreign target starting with the magic line (v1 and v2)
for v in 1 2; do
  { printf 'IOGEN-TARGET v%s\nsize=1048576\n' $v; head -c 1048000 /dev/urandom; } > fake$v.dat; b=$(sha fake$v.dat)
  $B run --target fake$v.dat --read-pct 50 $Q 2>err.txt; rc=$?
  row "R9 --target magic-line-only fake$v.dat, writes" $rc "fake$v.dat $b -> $(sha fake$v.dat); $(first_err)"
done
# 10. target swapped for a symlink: (a) a symlink target
head -c 1048576 /dev/urandom > victim.db; b=$(sha victim.db)
ln -s victim.db link.dat
$B run --target link.dat --allow-overwrite link.dat --read-pct 0 $Q 2>err.txt; rc=$?
row "R10a --target symlink -> victim.db (--allow-overwrite)" $rc "victim.db $b -> $(sha victim.db); $(first_err)"
# (b) race: swap t.dat <-> symlink to victim.db in a loop while writing runs run
$B run --target race.dat --size 1MiB --engine null --warmup 0s --duration 100ms --subinterval 100ms 2>/dev/null
ln race.dat keep.dat
python3 -c '
import os, time
end = time.time() + 20
while time.time() < end:  # atomic swaps: race.dat is always the real file or a link to victim.db
    os.symlink("victim.db", "s.tmp"); os.rename("s.tmp", "race.dat"); time.sleep(0.002)
    os.link("keep.dat", "k.tmp"); os.rename("k.tmp", "race.dat"); time.sleep(0.002)' &
SW=$!
ok=0; refused=0; other=0
for i in $(seq 1 150); do
  $B run --target race.dat --read-pct 0 --engine sync --warmup 0s --duration 20ms --subinterval 10ms 2>err.txt; rc=$?
  case $rc in 0) ok=$((ok+1));; 2) refused=$((refused+1));; *) other=$((other+1));; esac
done
wait $SW
row "R10b 150 writing runs while race.dat is swapped with a symlink to victim.db" - "ok $ok, refused(2) $refused, other $other; victim.db $b -> $(sha victim.db)"
# 11. --csv on a full file system
mkdir -p small && mount -t tmpfs -o size=64k tmpfs small
$B run --target t.dat --engine null --iops 1000 --warmup 0s --duration 5s --subinterval 10ms --csv small/s.csv 2>err.txt; rc=$?
row "R11 --csv on a 64 KiB tmpfs" $rc "$(stat -c %s small/s.csv) bytes, last byte $(tail -c1 small/s.csv | od -An -c | tr -d ' '), lines $(wc -l < small/s.csv); $(first_err)"
umount small
# 12. --start-at far in the future
s=$(date +%s%N); $B run --target t2.dat $Q --start-at 99999999999999 --csv st.csv 2>err.txt; rc=$?
row "R12 --start-at 99999999999999" $rc "$(( ($(date +%s%N)-s)/1000000 )) ms, t2.dat/st.csv created: $(ls t2.dat st.csv 2>/dev/null | wc -l); $(first_err)"
# 13. plans: duplicated column, unterminated quote, foreign target written by row 2
head -c 1048576 /dev/urandom > foreign.db; b=$(sha foreign.db)
printf 'read_pct,read_pct\n100,100\n' > p1.csv
printf 'read_pct,protocol\n100,nfs\n100,"smb\n100,iscsi\n' > p2.csv
printf 'read_pct,step_name\n100,reads\n50,mixed\n' > p3.csv
for p in p1 p2 p3; do
  $B plan $p.csv --target foreign.db $Q --csv $p-out.csv 2>err.txt; rc=$?
  row "R13 plan $p.csv ($(sed -n 1p $p.csv)) on foreign.db" $rc "steps run: $(grep -c '^iogen: step' err.txt), $p-out.csv created: $([ -e $p-out.csv ] && echo yes || echo no), foreign.db $b -> $(sha foreign.db); $(first_err)"
done
cd /; rm -rf "$W"
