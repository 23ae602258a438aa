package main

// -tools-boot-seconds D: VMware Tools that come up a while after a power-on,
// as in a real guest (tens of seconds). A VM whose Tools ran is watched:
// when it is powered off its Tools stop (guest operations not ready), and
// when it is powered on again they start D seconds later. 0 (the default)
// keeps them as they are, ready at once; the simulator itself never changes
// them on a power change.

import (
	"flag"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type toolsBoot struct {
	seconds float64
}

func (t *toolsBoot) flags(fs *flag.FlagSet) {
	fs.Float64Var(&t.seconds, "tools-boot-seconds", 0,
		"VMware Tools of a VM start this many seconds after it is powered on, and stop when it is powered off (0 = never changed)")
}

func (t *toolsBoot) setup(l *lab) error {
	if t.seconds > 0 {
		go t.watch(time.Duration(t.seconds * float64(time.Second)))
	}
	return nil
}

// watch polls power states (the simulator has no power-change hook): a
// tenth of a second is far below any wait a client makes.
func (t *toolsBoot) watch(boot time.Duration) {
	last := map[types.ManagedObjectReference]types.VirtualMachinePowerState{}
	withTools := map[types.ManagedObjectReference]bool{}
	for range time.Tick(100 * time.Millisecond) {
		for _, obj := range simulator.Map.All("VirtualMachine") {
			vm, ok := obj.(*simulator.VirtualMachine)
			if !ok {
				continue
			}
			var power types.VirtualMachinePowerState
			var running bool
			simulator.Map.WithLock(vm, func() {
				power = vm.Runtime.PowerState
				running = vm.Guest != nil && vm.Guest.ToolsRunningStatus == string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
			})
			ref := vm.Reference()
			withTools[ref] = withTools[ref] || running
			was, seen := last[ref]
			last[ref] = power
			if !seen || was == power || !withTools[ref] {
				continue
			}
			simulator.Map.WithLock(vm, func() { setTools(vm, false) })
			if power == types.VirtualMachinePowerStatePoweredOn {
				time.AfterFunc(boot, func() {
					simulator.Map.WithLock(vm, func() {
						if vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn {
							setTools(vm, true)
						}
					})
				})
			}
		}
	}
}
