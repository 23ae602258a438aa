package main

// layoutEx from the real files. 0.24.2 builds a VM's layoutEx once, from
// guessed names (x-flat.vmdk for every disk link, deltas included) and the
// sizes at creation, and never looks at the files again; its
// RefreshStorageInfo even drops every entry (it stats the "[ds] path" string
// as if it were a local path) and re-adds the folder's files without their
// folder ("[ds] fiotest.vmx"). refreshLayout recomputes layoutEx, layout,
// storage, the VM's datastore list and the datastores' vm lists from the
// files, after every change the lab makes (seeds.go, relocate.go,
// snapshots.go) and for RefreshStorageInfo.

import (
	"flag"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
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

// layoutBuilder collects layoutEx files, each once, with its size as the
// VM's host sees it (hostview.go).
type layoutBuilder struct {
	host  *simulator.HostSystem
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
	// size is the file's size as the host sees it (an extent's allocation
	// under -thin-sizes allocated), 0 included (the element is not
	// omitempty, so 0 goes on the wire).
	accessible := false
	if local, ok := localPath(name); ok {
		if seen, err := views.stat(b.host, local); err == nil {
			accessible = true
			info.Size = views.reportedSize(name, seen)
			info.UniqueSize = info.Size
			ds, _, _ := splitDSPath(name)
			b.alloc[ds] += seen.alloc
		}
	}
	info.Accessible = types.NewBool(accessible)
	b.files = append(b.files, info)
	return key
}

// refreshLayout recomputes layoutEx, layout, storage and the datastore
// lists of vm from its files. Call with the VM locked.
func refreshLayout(vm *simulator.VirtualMachine) {
	b := &layoutBuilder{host: hostOf(vm), keys: make(map[string]int32), alloc: make(map[string]int64)}
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
