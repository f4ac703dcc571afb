# Run in the guest by `make run EXTRA="my_probe.ko my_probe.sh"`, after
# my_probe.ko is loaded: three syncs must be three more hits.
before=$(cat /sys/module/my_probe/parameters/hits)
sync; sync; sync
after=$(cat /sys/module/my_probe/parameters/hits)
echo "my_probe: ksys_sync hits $before -> $after"
[ $((after - before)) -ge 3 ]
