package main

// A VM's files, read from the datastore directories: where "[ds] dir/file"
// lives in the lab, which files make up each disk's chain, and the
// properties that describe them (layoutEx, layout, storage, datastore, and
// the datastores' vm lists). 0.24.2 builds layoutEx once from guessed names
// (x-flat.vmdk, sizes at creation, some names without their folder) and
// never looks at the files again; the lab recomputes it from the real files
// after every change it makes (layout.go, relocate.go, snapshots.go).
//
// All of this runs under the VM's lock (simulator.Map.WithLock) and
// vmFilesMu, which serialises the lab's own file operations.

import (
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
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

// layoutBuilder collects layoutEx files, each once, with its real size.
type layoutBuilder struct {
	files []types.VirtualMachineFileLayoutExFileInfo
	keys  map[string]int32
	alloc map[string]int64 // bytes really allocated, per datastore
}

func (b *layoutBuilder) add(name string, kind types.VirtualMachineFileLayoutExFileType) int32 {
	if k, ok := b.keys[name]; ok {
		return k
	}
	key := int32(len(b.files))
	b.keys[name] = key
	info := types.VirtualMachineFileLayoutExFileInfo{Key: key, Name: name, Type: string(kind)}
	// size is the file's real size, 0 included (the element is not
	// omitempty, so 0 goes on the wire).
	accessible := false
	if local, ok := localPath(name); ok {
		if st, err := os.Stat(local); err == nil {
			accessible = true
			info.Size = st.Size()
			info.UniqueSize = st.Size()
			ds, _, _ := splitDSPath(name)
			b.alloc[ds] += allocated(st)
		}
	}
	info.Accessible = types.NewBool(accessible)
	b.files = append(b.files, info)
	return key
}

// refreshLayout recomputes layoutEx, layout, storage and the datastore
// lists of vm from its files. Call with the VM locked.
func refreshLayout(vm *simulator.VirtualMachine) {
	b := &layoutBuilder{keys: make(map[string]int32), alloc: make(map[string]int64)}
	homeDS, home := homeFolder(vm)
	b.add(vm.Config.Files.VmPathName, types.VirtualMachineFileLayoutExFileTypeConfig)

	var configFiles, logFiles []string
	for _, name := range folderFiles(homeDS, home) {
		full := joinDSPath(homeDS, path.Join(home, name))
		switch path.Ext(name) {
		case ".nvram":
			b.add(full, types.VirtualMachineFileLayoutExFileTypeNvram)
			configFiles = append(configFiles, name)
		case ".vmsd":
			b.add(full, types.VirtualMachineFileLayoutExFileTypeSnapshotList)
			configFiles = append(configFiles, name)
		case ".vmxf":
			b.add(full, types.VirtualMachineFileLayoutExFileTypeExtendedConfig)
			configFiles = append(configFiles, name)
		}
	}
	if ds, dir, ok := splitDSPath(vm.Config.Files.LogDirectory); ok {
		for _, name := range folderFiles(ds, dir) {
			if strings.HasPrefix(name, "vmware") && path.Ext(name) == ".log" {
				b.add(joinDSPath(ds, path.Join(dir, name)), types.VirtualMachineFileLayoutExFileTypeLog)
				logFiles = append(logFiles, name)
			}
		}
	}
	vmsn := make(map[string]int32) // basename -> key
	if ds, dir, ok := splitDSPath(vm.Config.Files.SnapshotDirectory); ok {
		for _, name := range folderFiles(ds, dir) {
			if path.Ext(name) == ".vmsn" {
				vmsn[name] = b.add(joinDSPath(ds, path.Join(dir, name)), types.VirtualMachineFileLayoutExFileTypeSnapshotData)
			}
		}
	}

	// Disks: the chain from the base up to the running point.
	diskLayout := func(devices []types.BaseVirtualDevice) ([]types.VirtualMachineFileLayoutExDiskLayout, []types.VirtualMachineFileLayoutDiskLayout) {
		var ex []types.VirtualMachineFileLayoutExDiskLayout
		var old []types.VirtualMachineFileLayoutDiskLayout
		for _, disk := range vmDisks(devices) {
			chain := chainOf(disk)
			dl := types.VirtualMachineFileLayoutExDiskLayout{Key: disk.Key}
			ol := types.VirtualMachineFileLayoutDiskLayout{Key: disk.Key}
			for i := len(chain) - 1; i >= 0; i-- {
				desc, extents := linkFiles(chain[i].FileName)
				unit := types.VirtualMachineFileLayoutExDiskUnit{
					FileKey: []int32{b.add(desc, types.VirtualMachineFileLayoutExFileTypeDiskDescriptor)},
				}
				for _, e := range extents {
					unit.FileKey = append(unit.FileKey, b.add(e, types.VirtualMachineFileLayoutExFileTypeDiskExtent))
				}
				dl.Chain = append(dl.Chain, unit)
				ol.DiskFile = append(ol.DiskFile, chain[i].FileName)
			}
			ex = append(ex, dl)
			old = append(old, ol)
		}
		return ex, old
	}
	disks, oldDisks := diskLayout(vm.Config.Hardware.Device)

	var snaps []types.VirtualMachineFileLayoutExSnapshotLayout
	for _, ref := range snapshotRefs(vm) {
		s, ok := simulator.Map.Get(ref).(*simulator.VirtualMachineSnapshot)
		if !ok {
			continue
		}
		snapshotData.Lock()
		data := snapshotData.m[ref]
		snapshotData.Unlock()
		key, ok := vmsn[data]
		if !ok {
			key = -1
		}
		sd, _ := diskLayout(s.Config.Hardware.Device)
		snaps = append(snaps, types.VirtualMachineFileLayoutExSnapshotLayout{Key: ref, DataKey: key, MemoryKey: -1, Disk: sd})
	}

	now := time.Now()
	layoutEx := &types.VirtualMachineFileLayoutEx{File: b.files, Disk: disks, Snapshot: snaps, Timestamp: now}
	layout := &types.VirtualMachineFileLayout{ConfigFile: configFiles, LogFile: logFiles, Disk: oldDisks}
	if vm.Layout != nil {
		layout.Snapshot = vm.Layout.Snapshot
	}

	// Datastores: every one holding a file of the VM.
	var dsRefs []types.ManagedObjectReference
	seen := make(map[string]bool)
	for _, f := range b.files {
		name, _, _ := splitDSPath(f.Name)
		if seen[name] {
			continue
		}
		seen[name] = true
		if ds := datastoreNamed(name); ds != nil {
			dsRefs = append(dsRefs, ds.Self)
		}
	}
	storage := &types.VirtualMachineStorageInfo{Timestamp: now}
	summary := &types.VirtualMachineStorageSummary{Timestamp: now}
	for _, ref := range dsRefs {
		ds := simulator.Map.Get(ref).(*simulator.Datastore)
		u := types.VirtualMachineUsageOnDatastore{Datastore: ref, Committed: b.alloc[ds.Name], Unshared: b.alloc[ds.Name]}
		storage.PerDatastoreUsage = append(storage.PerDatastoreUsage, u)
		summary.Committed += u.Committed
		summary.Unshared += u.Unshared
	}
	for _, disk := range vmDisks(vm.Config.Hardware.Device) {
		summary.Uncommitted += diskBytes(disk)
	}
	if summary.Uncommitted -= summary.Unshared; summary.Uncommitted < 0 {
		summary.Uncommitted = 0
	}

	old := vm.Datastore
	simulator.Map.Update(vm, []types.PropertyChange{
		{Name: "layoutEx", Val: layoutEx},
		{Name: "layout", Val: layout},
		{Name: "storage", Val: storage},
		{Name: "summary.storage", Val: summary},
		{Name: "datastore", Val: dsRefs},
	})
	syncDatastoreVMs(vm.Self, old, dsRefs)
}

// syncDatastoreVMs keeps each datastore's vm list in step with the VM's
// datastore list.
func syncDatastoreVMs(vm types.ManagedObjectReference, old, cur []types.ManagedObjectReference) {
	for _, ref := range old {
		if simulator.FindReference(cur, ref) == nil {
			if ds, ok := simulator.Map.Get(ref).(*simulator.Datastore); ok {
				simulator.Map.RemoveReference(ds, &ds.Vm, vm)
			}
		}
	}
	for _, ref := range cur {
		if ds, ok := simulator.Map.Get(ref).(*simulator.Datastore); ok {
			simulator.Map.AddReference(ds, &ds.Vm, vm)
		}
	}
}

// allocated is the space a file really takes (sparse extents take little).
func allocated(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Blocks * 512
	}
	return st.Size()
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

// vmxContent is a plausible .vmx for the VM as configured now; ESXi
// rewrites it whenever files move, and so does the lab.
func vmxContent(vm *simulator.VirtualMachine) string {
	homeDS, home := homeFolder(vm)
	cfg := vm.Config
	hw := strings.TrimPrefix(cfg.Version, "vmx-")
	guest := strings.TrimSuffix(cfg.GuestId, "Guest")
	guest = strings.Replace(guest, "64", "-64", 1)
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %q\n", k, v) }
	kv(".encoding", "UTF-8")
	kv("config.version", "8")
	kv("virtualHW.version", hw)
	kv("displayName", vm.Name)
	kv("guestOS", guest)
	kv("memSize", fmt.Sprint(cfg.Hardware.MemoryMB))
	kv("numvcpus", fmt.Sprint(cfg.Hardware.NumCPU))
	kv("nvram", vm.Name+".nvram")
	kv("uuid.bios", cfg.Uuid)
	kv("vc.uuid", cfg.InstanceUuid)
	devices := object.VirtualDeviceList(cfg.Hardware.Device)
	for _, disk := range vmDisks(cfg.Hardware.Device) {
		prefix := ""
		switch c := devices.FindByKey(disk.ControllerKey).(type) {
		case types.BaseVirtualSCSIController:
			prefix = fmt.Sprintf("scsi%d", c.GetVirtualSCSIController().BusNumber)
			kv(prefix+".present", "TRUE")
			kv(prefix+".virtualDev", scsiDev(c))
		case *types.VirtualIDEController:
			prefix = fmt.Sprintf("ide%d", c.BusNumber)
		case types.BaseVirtualSATAController:
			prefix = fmt.Sprintf("sata%d", c.GetVirtualSATAController().BusNumber)
		default:
			continue
		}
		unit := int32(0)
		if disk.UnitNumber != nil {
			unit = *disk.UnitNumber
		}
		dev := fmt.Sprintf("%s:%d", prefix, unit)
		kv(dev+".present", "TRUE")
		kv(dev+".fileName", vmxDiskName(disk, homeDS, home))
	}
	return b.String()
}

func scsiDev(c types.BaseVirtualSCSIController) string {
	switch c.(type) {
	case *types.ParaVirtualSCSIController:
		return "pvscsi"
	case *types.VirtualLsiLogicSASController:
		return "lsisas1068"
	case *types.VirtualBusLogicController:
		return "buslogic"
	}
	return "lsilogic"
}

// vmxDiskName names a disk as the .vmx does: relative in the VM's folder,
// otherwise by its /vmfs/volumes path.
func vmxDiskName(disk *types.VirtualDisk, homeDS, home string) string {
	b := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
	ds, rel, _ := splitDSPath(b.FileName)
	if ds == homeDS && path.Dir(rel) == home {
		return path.Base(rel)
	}
	return "/vmfs/volumes/" + ds + "/" + rel
}

// writeVMX rewrites the VM's .vmx.
func writeVMX(vm *simulator.VirtualMachine) {
	if local, ok := localPath(vm.Config.Files.VmPathName); ok {
		_ = os.WriteFile(local, []byte(vmxContent(vm)), 0o644)
	}
}
