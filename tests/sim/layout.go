package main

// RefreshStorageInfo recomputes a VM's layoutEx from its files
// (vmfiles.go). 0.24.2's version drops every layoutEx entry (it stats the
// "[ds] path" string as if it were a local path), re-adds the folder's files
// without their folder ("[ds] fiotest.vmx") and guesses x-flat.vmdk for
// every disk link, deltas included.

import (
	"flag"
	"net/http"

	"github.com/vmware/govmomi/simulator"
)

type layoutRefresh struct {
	l *lab
}

func (r *layoutRefresh) flags(*flag.FlagSet) {}

func (r *layoutRefresh) setup(l *lab) error {
	r.l = l
	l.beforeCall(r.intercept)
	return nil
}

func (r *layoutRefresh) intercept(c *soapCall, w http.ResponseWriter) bool {
	if c.Method != "RefreshStorageInfo" || !r.l.sessions.valid(c.Session) {
		return false
	}
	vm, ok := simulator.Map.Get(c.This).(*simulator.VirtualMachine)
	if !ok {
		return false
	}
	vmFilesMu.Lock()
	simulator.Map.WithLock(vm, func() { refreshLayout(vm) })
	vmFilesMu.Unlock()
	writeVoidResponse(w, c.Method)
	return true
}
