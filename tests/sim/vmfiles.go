package main

// A VM's files as the lab sees them: where "[ds] dir/file" lives in the lab
// directory, which files make up each disk's chain (the descriptor names its
// extents), the VM's folder, and small inventory helpers shared by the NFS
// features. layout.go turns this into layoutEx.
//
// Changes to a VM's files run under the VM's lock (simulator.Map.WithLock)
// and vmFilesMu, which serialises the lab's own file operations (relocate,
// snapshots, RefreshStorageInfo).

import (
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

var vmFilesMu sync.Mutex

// snapshotData names each snapshot's .vmsn (basename), noted when the
// snapshot is taken (snapshots.go): the simulator renumbers layoutEx keys
// when it rescans a VM's files, so its snapshot dataKeys cannot be trusted
// afterwards.
var snapshotData = struct {
	sync.Mutex
	m map[types.ManagedObjectReference]string
}{m: make(map[types.ManagedObjectReference]string)}

// datastoreNamed finds a datastore by name (the lab has one datacenter).
func datastoreNamed(name string) *simulator.Datastore {
	for _, e := range simulator.Map.All("Datastore") {
		if ds, ok := e.(*simulator.Datastore); ok && ds.Name == name {
			return ds
		}
	}
	return nil
}

// splitDSPath splits "[ds] dir/file" into "ds" and "dir/file".
func splitDSPath(p string) (string, string, bool) {
	var dp object.DatastorePath
	if !dp.FromString(p) {
		return "", "", false
	}
	return dp.Datastore, dp.Path, true
}

func joinDSPath(ds, rel string) string {
	p := object.DatastorePath{Datastore: ds, Path: rel}
	return p.String()
}

// localPath is the lab file behind "[ds] rel". For NFS datastores it is
// relative to the lab directory, the working directory (see nfs.go).
func localPath(p string) (string, bool) {
	name, rel, ok := splitDSPath(p)
	if !ok {
		return "", false
	}
	ds := datastoreNamed(name)
	if ds == nil {
		return "", false
	}
	return path.Join(ds.Info.GetDatastoreInfo().Url, rel), true
}

// vmDisks returns the VM's disks with a file backing.
func vmDisks(devices []types.BaseVirtualDevice) []*types.VirtualDisk {
	var disks []*types.VirtualDisk
	for _, d := range devices {
		if disk, ok := d.(*types.VirtualDisk); ok {
			if _, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo); ok {
				disks = append(disks, disk)
			}
		}
	}
	return disks
}

// chainOf lists a disk's links, the running point first and the base last.
func chainOf(disk *types.VirtualDisk) []*types.VirtualDiskFlatVer2BackingInfo {
	var chain []*types.VirtualDiskFlatVer2BackingInfo
	b, _ := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
	for ; b != nil; b = b.Parent {
		chain = append(chain, b)
	}
	return chain
}

// linkFiles returns a link's descriptor and extents as datastore paths. The
// extents are named in the descriptor; a file that is not a descriptor (the
// simulator's empty disks) is taken to have the usual x-flat.vmdk.
func linkFiles(descriptorPath string) (string, []string) {
	ds, rel, ok := splitDSPath(descriptorPath)
	if !ok {
		return descriptorPath, nil
	}
	dir := path.Dir(rel)
	var extents []string
	if local, ok := localPath(descriptorPath); ok {
		if d, ok := readDescriptor(local); ok {
			for _, e := range d.extents {
				extents = append(extents, joinDSPath(ds, path.Join(dir, e.file)))
			}
			return descriptorPath, extents
		}
	}
	flat := strings.TrimSuffix(rel, ".vmdk") + "-flat.vmdk"
	if local, ok := localPath(joinDSPath(ds, flat)); ok {
		if _, err := os.Stat(local); err == nil {
			extents = append(extents, joinDSPath(ds, flat))
		}
	}
	return descriptorPath, extents
}

// homeFolder returns "[ds] dir" of the VM's .vmx.
func homeFolder(vm *simulator.VirtualMachine) (string, string) {
	ds, rel, _ := splitDSPath(vm.Config.Files.VmPathName)
	return ds, path.Dir(rel)
}

// folderFiles lists the regular files of "[ds] dir", sorted.
func folderFiles(ds, dir string) []string {
	local, ok := localPath(joinDSPath(ds, dir))
	if !ok {
		return nil
	}
	entries, err := os.ReadDir(local)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

func diskBytes(disk *types.VirtualDisk) int64 {
	if disk.CapacityInBytes > 0 {
		return disk.CapacityInBytes
	}
	return disk.CapacityInKB * 1024
}

// snapshotRefs lists the VM's snapshots, parents before children.
func snapshotRefs(vm *simulator.VirtualMachine) []types.ManagedObjectReference {
	if vm.Snapshot == nil {
		return nil
	}
	var refs []types.ManagedObjectReference
	var walk func([]types.VirtualMachineSnapshotTree)
	walk = func(tree []types.VirtualMachineSnapshotTree) {
		for _, t := range tree {
			refs = append(refs, t.Snapshot)
			walk(t.ChildSnapshotList)
		}
	}
	walk(vm.Snapshot.RootSnapshotList)
	return refs
}

func hasSnapshots(vm *simulator.VirtualMachine) bool {
	return vm.Snapshot != nil && len(vm.Snapshot.RootSnapshotList) > 0
}

// setVMLog points the simulator's own VM log (an unexported field it
// appends power-operation lines to) at the VM's current vmware.log, so that
// after a move it does not write into the folder the VM left.
func setVMLog(vm *simulator.VirtualMachine, local string) {
	f := reflect.ValueOf(vm).Elem().FieldByName("log")
	if !f.IsValid() || f.Kind() != reflect.String || !f.CanAddr() {
		return
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetString(local)
}

// hostOf returns the VM's host.
func hostOf(vm *simulator.VirtualMachine) *simulator.HostSystem {
	if vm.Runtime.Host == nil {
		return nil
	}
	h, _ := simulator.Map.Get(*vm.Runtime.Host).(*simulator.HostSystem)
	return h
}

// computeResourceOf returns the host's (cluster) compute resource.
func computeResourceOf(h *simulator.HostSystem) (mo.Reference, *mo.ComputeResource) {
	switch p := simulator.Map.Get(*h.Parent).(type) {
	case *mo.ComputeResource:
		return p, p
	case *simulator.ClusterComputeResource:
		return p, &p.ComputeResource
	}
	return nil, nil
}

// datacenterOf walks up from e to its datacenter.
func datacenterOf(e mo.Entity) *simulator.Datacenter {
	for e != nil {
		if dc, ok := e.(*simulator.Datacenter); ok {
			return dc
		}
		parent := e.Entity().Parent
		if parent == nil {
			return nil
		}
		e, _ = simulator.Map.Get(*parent).(mo.Entity)
	}
	return nil
}
