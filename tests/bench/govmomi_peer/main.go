// govmomi_peer does what nfsagent does, the way a govmomi program would, so
// that the benchmark can report nfsagent's calls, time and memory as ratios
// against VMware's own Go SDK on the same simulated lab.
//
//	govmomi_peer ls-vms          list every VM with power state, host, datastores, tools
//	govmomi_peer find-vm NAME    find one VM with its host and datastores
//	govmomi_peer move-all FROM TO  Storage-vMotion every VM on datastore FROM to TO:
//	                             every RelocateVM_Task fired, then all waited for
//	                             (PowerCLI's Move-VM -RunAsync pattern; vCenter queues)
//
// Connection from NFSAGENT_URL, NFSAGENT_USERNAME, NFSAGENT_PASSWORD; the lab
// is on loopback, so certificate checks are skipped here.
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sort"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

func connect(ctx context.Context) *govmomi.Client {
	u, err := url.Parse(os.Getenv("NFSAGENT_URL"))
	if err != nil {
		fail(err)
	}
	u.User = url.UserPassword(os.Getenv("NFSAGENT_USERNAME"), os.Getenv("NFSAGENT_PASSWORD"))
	c, err := govmomi.NewClient(ctx, u, true)
	if err != nil {
		fail(err)
	}
	return c
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "govmomi_peer:", err)
	os.Exit(1)
}

// lsVMs retrieves VMs, hosts and datastores in one RetrieveProperties over a
// container view, then resolves host and datastore names locally.
func lsVMs(ctx context.Context, c *govmomi.Client) {
	v, err := view.NewManager(c.Client).CreateContainerView(ctx, c.ServiceContent.RootFolder,
		[]string{"VirtualMachine", "HostSystem", "Datastore"}, true)
	if err != nil {
		fail(err)
	}
	ts := types.TraversalSpec{Type: "ContainerView", Path: "view"}
	req := types.RetrieveProperties{SpecSet: []types.PropertyFilterSpec{{
		ObjectSet: []types.ObjectSpec{{Obj: v.Reference(), Skip: types.NewBool(true),
			SelectSet: []types.BaseSelectionSpec{&ts}}},
		PropSet: []types.PropertySpec{
			{Type: "VirtualMachine", PathSet: []string{"name", "runtime.powerState", "runtime.host",
				"datastore", "guest.toolsRunningStatus"}},
			{Type: "HostSystem", PathSet: []string{"name"}},
			{Type: "Datastore", PathSet: []string{"name"}},
		},
	}}}
	res, err := property.DefaultCollector(c.Client).RetrieveProperties(ctx, req)
	if err != nil {
		fail(err)
	}
	var vms []mo.VirtualMachine
	names := map[types.ManagedObjectReference]string{}
	for _, oc := range res.Returnval {
		switch oc.Obj.Type {
		case "VirtualMachine":
			var vm mo.VirtualMachine
			if err := mo.LoadObjectContent([]types.ObjectContent{oc}, &vm); err != nil {
				fail(err)
			}
			vms = append(vms, vm)
		default:
			for _, p := range oc.PropSet {
				if p.Name == "name" {
					names[oc.Obj] = p.Val.(string)
				}
			}
		}
	}
	sort.Slice(vms, func(i, j int) bool { return vms[i].Name < vms[j].Name })
	for _, vm := range vms {
		var ds []string
		for _, d := range vm.Datastore {
			ds = append(ds, names[d])
		}
		fmt.Println(vm.Name, vm.Runtime.PowerState, names[*vm.Runtime.Host], ds, vm.Guest.ToolsRunningStatus)
	}
}

// datacenterFinder is a finder set to the default datacenter.
func datacenterFinder(ctx context.Context, c *govmomi.Client) *find.Finder {
	finder := find.NewFinder(c.Client, true)
	dc, err := finder.DefaultDatacenter(ctx)
	if err != nil {
		fail(err)
	}
	finder.SetDatacenter(dc)
	return finder
}

// findVM uses the finder, then reads the VM's host and datastores.
func findVM(ctx context.Context, c *govmomi.Client, name string) {
	finder := datacenterFinder(ctx, c)
	vm, err := finder.VirtualMachine(ctx, name)
	if err != nil {
		fail(err)
	}
	var mvm mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"runtime.host", "datastore"}, &mvm); err != nil {
		fail(err)
	}
	pc := property.DefaultCollector(c.Client)
	var host mo.HostSystem
	if err := pc.RetrieveOne(ctx, *mvm.Runtime.Host, []string{"name"}, &host); err != nil {
		fail(err)
	}
	var dss []mo.Datastore
	if err := pc.Retrieve(ctx, mvm.Datastore, []string{"name"}, &dss); err != nil {
		fail(err)
	}
	fmt.Println(name, host.Name, len(dss))
}

// moveAll fires a relocation of every VM with files on from, then waits for
// all of them: no limits of its own, vCenter's queue does the pacing.
func moveAll(ctx context.Context, c *govmomi.Client, from, to string) {
	finder := datacenterFinder(ctx, c)
	src, err := finder.Datastore(ctx, from)
	if err != nil {
		fail(err)
	}
	dst, err := finder.Datastore(ctx, to)
	if err != nil {
		fail(err)
	}
	var ds mo.Datastore
	if err := src.Properties(ctx, src.Reference(), []string{"vm"}, &ds); err != nil {
		fail(err)
	}
	var tasks []*object.Task
	for _, vmRef := range ds.Vm {
		to := dst.Reference()
		task, err := object.NewVirtualMachine(c.Client, vmRef).Relocate(ctx,
			types.VirtualMachineRelocateSpec{Datastore: &to}, types.VirtualMachineMovePriorityDefaultPriority)
		if err != nil {
			fail(err)
		}
		tasks = append(tasks, task)
	}
	for _, t := range tasks {
		if err := t.Wait(ctx); err != nil {
			fail(err)
		}
	}
	fmt.Println(len(tasks), "moved")
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: govmomi_peer ls-vms | find-vm NAME | move-all FROM TO")
		os.Exit(2)
	}
	ctx := context.Background()
	c := connect(ctx)
	switch os.Args[1] {
	case "ls-vms":
		lsVMs(ctx, c)
	case "find-vm":
		findVM(ctx, c, os.Args[2])
	case "move-all":
		moveAll(ctx, c, os.Args[2], os.Args[3])
	}
	if err := c.Logout(ctx); err != nil {
		fail(err)
	}
}
