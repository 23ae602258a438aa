package main

// -tools-boot-seconds D: VMware Tools that come up a while after a power-on,
// as in a real guest (tens of seconds). For a VM whose Tools ran, a
// PowerOffVM_Task or PowerOnVM_Task call stops them before the simulator
// sees the call (guest operations not ready), and once a power-on has taken
// effect (at once, or when a slow task ends) they start D seconds later.
// 0 (the default) keeps them as they are, ready at once; the simulator
// itself never changes them on a power change.

import (
	"flag"
	"net/http"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type toolsBoot struct {
	seconds float64
	l       *lab

	mu  sync.Mutex
	had map[types.ManagedObjectReference]bool // VMs whose Tools ran: they come back
}

func (t *toolsBoot) flags(fs *flag.FlagSet) {
	fs.Float64Var(&t.seconds, "tools-boot-seconds", 0,
		"VMware Tools of a VM stop at a power change and start this many seconds after it is powered on (0 = never changed)")
}

func (t *toolsBoot) setup(l *lab) error {
	t.l = l
	t.had = make(map[types.ManagedObjectReference]bool)
	if t.seconds > 0 {
		l.beforeCall(t.hook)
	}
	return nil
}

func (t *toolsBoot) hook(c *soapCall, _ http.ResponseWriter) bool {
	if (c.Method != "PowerOnVM_Task" && c.Method != "PowerOffVM_Task") || !t.l.sessions.valid(c.Session) {
		return false
	}
	vm, ok := simulator.Map.Get(c.This).(*simulator.VirtualMachine)
	if !ok {
		return false
	}
	running := false
	simulator.Map.WithLock(vm, func() {
		running = vm.Guest != nil && vm.Guest.ToolsRunningStatus == string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
		if running {
			setTools(vm, false)
		}
	})
	t.mu.Lock()
	t.had[c.This] = t.had[c.This] || running
	had := t.had[c.This]
	t.mu.Unlock()
	if had && c.Method == "PowerOnVM_Task" {
		go t.boot(vm)
	}
	return false
}

// boot starts the VM's Tools D seconds after it is powered on (a minute at
// most for the power-on to take effect).
func (t *toolsBoot) boot(vm *simulator.VirtualMachine) {
	on := func() (yes bool) {
		simulator.Map.WithLock(vm, func() { yes = vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn })
		return yes
	}
	for deadline := time.Now().Add(time.Minute); !on() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Duration(t.seconds * float64(time.Second)))
	simulator.Map.WithLock(vm, func() {
		if vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn {
			setTools(vm, true)
		}
	})
}
