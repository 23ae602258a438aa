package main

// vSphere Cluster Services agent VMs (-vcls NAME). Since 7.0 U1 vCenter puts
// up to 3 small agent VMs, vCLS-<uuid>, on a cluster's shared datastores by
// itself, one per host, powered on; they block an unmount like any VM (the
// lab's RemoveDatastore rule, nfsmount.go), and only retreat mode removes
// them.
//
// Once datastore NAME is mounted on hosts of cluster DC0_C0 (at start, or
// later through CreateNasDatastore), each of those hosts, up to 3, gets one:
// folder [NAME] vCLS-<uuid>/ with the simulator's files, no disk, on the
// cluster's resource pool. The uuid is derived from the host's name, so a run
// names the same VMs every time.

import (
	"context"
	"crypto/sha1"
	"flag"
	"fmt"
	"log"
	"sync"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// maxVCLS is how many agent VMs vCenter runs per cluster.
const maxVCLS = 3

type vclsAgents struct {
	datastore string
	l         *lab

	mu     sync.Mutex
	placed map[types.ManagedObjectReference]bool // hosts that have their agent VM
}

func (v *vclsAgents) flags(fs *flag.FlagSet) {
	fs.StringVar(&v.datastore, "vcls", "", "datastore on which cluster "+haClusterName+
		" runs its vSphere Cluster Services VMs vCLS-<uuid> (one per host that mounts it, at most 3)")
}

func (v *vclsAgents) setup(l *lab) error {
	if v.datastore == "" {
		return nil
	}
	v.l = l
	v.placed = make(map[types.ManagedObjectReference]bool)
	// The client gets the mount's answer only once this handler returns,
	// so the agent VMs exist when it looks.
	l.afterCall(func(c *soapCall, status int) {
		if c.Method == "CreateNasDatastore" && status == 200 {
			if err := v.place(); err != nil {
				log.Printf("vCLS VMs on %s: %v", v.datastore, err)
			}
		}
	})
	return v.place()
}

// place creates the agent VMs that are missing.
func (v *vclsAgents) place() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	ds := datastoreNamed(v.datastore)
	cl := clusterNamed(haClusterName)
	if ds == nil || cl == nil {
		return nil
	}
	for _, ref := range heartbeatHosts(cl, ds) {
		if len(v.placed) >= maxVCLS {
			break
		}
		if v.placed[ref] {
			continue
		}
		host, ok := simulator.Map.Get(ref).(*simulator.HostSystem)
		if !ok {
			continue
		}
		if err := v.create(cl, host); err != nil {
			return err
		}
		v.placed[ref] = true
	}
	return nil
}

func (v *vclsAgents) create(cl *simulator.ClusterComputeResource, host *simulator.HostSystem) error {
	ctx := context.Background()
	sum := sha1.Sum([]byte("vCLS\x00" + host.Name))
	name := fmt.Sprintf("vCLS-%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
	config := types.VirtualMachineConfigSpec{
		Name:     name,
		GuestId:  "vmwarePhoton64Guest",
		NumCPUs:  1,
		MemoryMB: 128,
		Files:    &types.VirtualMachineFileInfo{VmPathName: joinDSPath(v.datastore, name+"/"+name+".vmx")},
	}
	dc := datacenterOf(host)
	folder := object.NewFolder(v.l.client, dc.VmFolder)
	pool := object.NewResourcePool(v.l.client, *cl.ResourcePool)
	task, err := folder.CreateVM(ctx, config, pool, object.NewHostSystem(v.l.client, host.Self))
	if err != nil {
		return err
	}
	res, err := task.WaitForResult(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	power, err := object.NewVirtualMachine(v.l.client, res.Result.(types.ManagedObjectReference)).PowerOn(ctx)
	if err != nil {
		return err
	}
	return power.Wait(ctx)
}

func clusterNamed(name string) *simulator.ClusterComputeResource {
	for _, e := range simulator.Map.All("ClusterComputeResource") {
		if cl, ok := e.(*simulator.ClusterComputeResource); ok && cl.Name == name {
			return cl
		}
	}
	return nil
}
