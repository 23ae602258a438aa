package main

// Inventory size. The default VPX model has datacenter DC0 with a
// standalone host DC0_H0 and a cluster DC0_C0 of 3 hosts, and creates
// Model.Machine VMs per resource pool (the standalone host's and the
// cluster's): DC0_H0_VM<i> and DC0_C0_RP0_VM<i>, all powered on.
//
// -hosts N keeps that shape: 1 standalone host plus N-1 cluster hosts
// (N=1: the standalone host only). -vms V splits the VMs: the standalone
// host gets ceil(V/2), the cluster floor(V/2) (so for odd V the last
// DC0_C0_RP0_VM is destroyed after creation). Names stay the simulator's.
// All VMs are powered on, so there are always at least 2 running VMs.
//
// -dc-folder puts DC0 in a folder F0 under the root (and, as the simulator
// does then, its hosts, VMs and datastores in F0 subfolders): its
// inventory path is F0/DC0, which /folder URLs want as dcPath.

import (
	"context"
	"flag"
	"fmt"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
)

type inventory struct {
	hosts    int
	vms      int
	dcFolder bool
}

func (inv *inventory) flags(fs *flag.FlagSet) {
	fs.IntVar(&inv.hosts, "hosts", 4, "number of ESXi hosts: 1 standalone, the rest in cluster DC0_C0")
	fs.IntVar(&inv.vms, "vms", 4, "number of VMs (at least 2), split between DC0_H0 and DC0_C0")
	fs.BoolVar(&inv.dcFolder, "dc-folder", false, "put datacenter DC0 in folder F0 (inventory path F0/DC0)")
}

func (inv *inventory) shape(m *simulator.Model) error {
	if inv.hosts < 1 {
		return fmt.Errorf("-hosts %d: want at least 1", inv.hosts)
	}
	if inv.vms < 2 {
		return fmt.Errorf("-vms %d: want at least 2 (the lab keeps 2 powered-on VMs)", inv.vms)
	}
	m.Datacenter = 1
	if inv.dcFolder {
		m.Folder = 1
	}
	m.Host = 1
	if inv.hosts == 1 {
		m.Cluster, m.ClusterHost = 0, 0
		m.Machine = inv.vms
	} else {
		m.Cluster, m.ClusterHost = 1, inv.hosts-1
		m.Machine = (inv.vms + 1) / 2
	}
	m.Autostart = true
	return nil
}

func (inv *inventory) setup(l *lab) error {
	if inv.hosts == 1 || inv.vms%2 == 0 {
		return nil
	}
	// Odd count: the cluster pool got one VM too many.
	name := fmt.Sprintf("DC0_C0_RP0_VM%d", l.model.Machine-1)
	for _, e := range simulator.Map.All("VirtualMachine") {
		vm, ok := e.(*simulator.VirtualMachine)
		if !ok || vm.Name != name {
			continue
		}
		ctx := context.Background()
		ovm := object.NewVirtualMachine(l.client, vm.Reference())
		if t, err := ovm.PowerOff(ctx); err == nil {
			_ = t.Wait(ctx)
		}
		t, err := ovm.Destroy(ctx)
		if err != nil {
			return err
		}
		return t.Wait(ctx)
	}
	return fmt.Errorf("VM %s not found", name)
}
