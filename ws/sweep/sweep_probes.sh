#!/bin/sh
# Guest half of ws/sweep.sh: a probe in every text symbol of the kernel,
# through sweep_probes.ko, 400 at a time, each batch followed by a
# workload; then the totals.  ws.sweep=MODE on the command line:
#   entry  a kprobe at each symbol's first instruction
#   mid    a kprobe at a random instruction boundary inside each symbol
#          (ws.sweep_seed=N, default 1; x86_64 tries 8 random byte offsets,
#          the first that decodes as a boundary registers)
#   ret    a kretprobe on each symbol
# ws.sweep_match=RE keeps the symbols whose name matches the awk regex RE,
# ws.sweep_from=N and ws.sweep_to=M those from the Nth to the Mth (from 1).
# Symbols are taken from /proc/kallsyms in address order, their sizes from
# the next symbol.  Exits non-zero if nothing registered or nothing hit.
P=/sys/module/sweep_probes/parameters
B=400; mode=entry; seed=1; tries=1; match=.; from=1; to=1000000
case $(uname -m) in x86_64) tries=8; al=1 ;; riscv64) al=2 ;; *) al=4 ;; esac
for w in $(cat /proc/cmdline); do
	case "$w" in
	ws.sweep=*) mode=${w#ws.sweep=} ;;
	ws.sweep_seed=*) seed=${w#ws.sweep_seed=} ;;
	ws.sweep_match=*) match=${w#ws.sweep_match=} ;;
	ws.sweep_from=*) from=${w#ws.sweep_from=} ;;
	ws.sweep_to=*) to=${w#ws.sweep_to=} ;;
	esac
done
[ -d $P ] || { echo "sweep: sweep_probes.ko is not loaded"; exit 1; }

# "NAME SIZE" for each text symbol of the kernel (modules aside); busybox
# awk reads "0x..." strings as hex, exactly on the low 32 bits.
awk '{ print $1, $2, $3 }' /proc/kallsyms | grep -v '\[' | sort |
	awk '{ a = ("0x" substr($1, length($1) - 7)) + 0; d = a - pa
	       if (d < 0) d += 4294967296
	       if (NR > 1 && (pt == "t" || pt == "T")) print pn, d
	       pa = a; pt = $2; pn = $3 }' |
	awk -v m="$match" -v f="$from" -v t="$to" '$1 ~ m && NR >= f && NR <= t' > /tmp/sweep.sized
case $mode in
entry) awk '{ print $1, 0 }' /tmp/sweep.sized ;;
ret) awk '{ print "r:" $1, 0 }' /tmp/sweep.sized ;;
mid) awk -v seed="$seed" -v al="$al" -v tries="$tries" 'BEGIN { srand(seed) }
	{ n = int($2 / al); if (n < 2) next; line = $1
	  for (t = 0; t < tries; t++) line = line " " al * (1 + int(rand() * (n - 1)))
	  print line }' /tmp/sweep.sized ;;
*) echo "sweep: unknown mode '$mode'"; exit 1 ;;
esac > /tmp/sweep.targets
echo "sweep: $(wc -l < /tmp/sweep.targets) symbols, mode $mode, seed $seed"

workload() {
	for _ in 1 2 3; do
		ls -l / > /dev/null
		cat /proc/self/maps /proc/interrupts > /dev/null
		sleep 0.1 2>/dev/null
	done
	echo x > /tmp/sweep.file && sync && rm /tmp/sweep.file
}
i=0; ok=0; refused=0; first=0
batch() {
	echo "sweep: $first..$i: $(cat $P/stat)"
	workload
	echo 1 > $P/clear
	first=$i
}
while read -r s offs; do
	r=1
	for o in $offs; do
		if echo "$s+$o" > $P/sym 2>/dev/null; then r=0; break; fi
	done
	if [ $r = 0 ]; then ok=$((ok + 1)); else refused=$((refused + 1)); fi
	i=$((i + 1))
	[ $((i - first)) -lt $B ] || batch
done < /tmp/sweep.targets
batch
stat=$(cat $P/stat)
echo "sweep: done: $ok registered, $refused refused; totals: ${stat#* probes, }"
hits=$(echo "$stat" | awk '{ print $3 + $5 }')
[ $ok -gt 0 ] && [ "$hits" -gt 0 ]
