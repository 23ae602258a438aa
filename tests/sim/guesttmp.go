package main

// -guest-tmp-kept: a guest's /tmp outlives a power cycle.  Off by default,
// as on a real guest whose /tmp is a tmpfs (Debian 13, Fedora, Arch): a
// PowerOffVM_Task of a VM that is on empties its guest's /tmp, and what a
// campaign kept there across rounds (its staging folder, its uploaded job
// texts) must be made again.

import (
	"flag"
	"net/http"
	"os"
	"path/filepath"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type guestTmp struct {
	kept bool
	l    *lab
}

func (g *guestTmp) flags(fs *flag.FlagSet) {
	fs.BoolVar(&g.kept, "guest-tmp-kept", false, "a guest's /tmp outlives a power cycle (default: a power-off empties it)")
}

func (g *guestTmp) setup(l *lab) error {
	g.l = l
	if !g.kept {
		l.beforeCall(g.hook)
	}
	return nil
}

func (g *guestTmp) hook(c *soapCall, _ http.ResponseWriter) bool {
	if c.Method != "PowerOffVM_Task" || !g.l.sessions.valid(c.Session) {
		return false
	}
	vm, ok := simulator.Map.Get(c.This).(*simulator.VirtualMachine)
	if !ok {
		return false
	}
	on := false
	simulator.Map.WithLock(vm, func() { on = vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn })
	if !on {
		return false // the call fails: the guest runs on
	}
	tmp := filepath.Join(g.l.dir, "guests", c.This.Value, "tmp")
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
	return false
}
