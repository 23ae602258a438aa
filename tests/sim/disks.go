package main

// CreateVirtualDisk_Task and DeleteVirtualDisk_Task with real disk files.
// 0.24.2 creates two empty files and deletes x.vmdk and x-flat.vmdk by
// name. nfsagent probes a datastore with small canary disks and checks
// that each flat file is as large as its descriptor says, so the lab writes
// an ESXi descriptor (createType vmfs, extent VMFS of capacityKb*2 sectors)
// and a sparse flat file of the full size; on an NFS41 datastore, when the
// NFS 4.1 bug strikes (nfsbug.go), the flat file is 0 bytes while the
// descriptor still declares the full size: on the export
// (-nfs41-bug-view export), or as the creating host sees it (host; the
// Nth call of the lab, N from 0, is done by mounting host N mod count, by
// name: hostview.go). Deleting removes the descriptor and every extent it
// names. As on vCenter, datacenter is required.
//
// Every disk type is written the same way (sparse flat file); only "thin"
// sets ddb.thinProvisioned.

import (
	"errors"
	"flag"
	"os"
	"path"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

type virtualDisks struct {
	bug *nfs41Bug
}

func (v *virtualDisks) flags(*flag.FlagSet) {}

func (v *virtualDisks) setup(l *lab) error {
	ref := l.client.ServiceContent.VirtualDiskManager
	if ref == nil {
		return errors.New("no VirtualDiskManager")
	}
	orig, ok := simulator.Map.Get(*ref).(*simulator.VirtualDiskManager)
	if !ok {
		return errors.New("unexpected VirtualDiskManager")
	}
	simulator.Map.Put(&labDiskManager{VirtualDiskManager: *orig, bug: v.bug})
	return nil
}

type labDiskManager struct {
	simulator.VirtualDiskManager
	bug *nfs41Bug
}

// adapterTypes maps VirtualDiskAdapterType to ddb.adapterType.
var adapterTypes = map[string]string{"ide": "ide", "busLogic": "buslogic", "lsiLogic": "lsilogic"}

func (m *labDiskManager) CreateVirtualDiskTask(ctx *simulator.Context, req *types.CreateVirtualDisk_Task) soap.HasFault {
	n := views.nextCreate()
	task := simulator.CreateTask(m, "createVirtualDisk", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		ds, local, fault := resolveDiskPath(req.Name, req.Datacenter)
		if fault != nil {
			return nil, fault
		}
		spec, ok := req.Spec.(*types.FileBackedVirtualDiskSpec)
		if !ok || spec.CapacityKb <= 0 {
			return nil, &types.InvalidArgument{InvalidProperty: "spec.capacityKb"}
		}
		if !strings.HasSuffix(local, ".vmdk") {
			return nil, &types.InvalidArgument{InvalidProperty: "name"}
		}
		if _, err := os.Stat(local); err == nil {
			return nil, &types.FileAlreadyExists{FileFault: types.FileFault{File: req.Name}}
		}
		if st, err := os.Stat(path.Dir(local)); err != nil || !st.IsDir() {
			return nil, &types.FileNotFound{FileFault: types.FileFault{File: req.Name}}
		}
		adapter := adapterTypes[spec.AdapterType]
		if adapter == "" {
			adapter = "lsilogic"
		}
		size := spec.CapacityKb * 1024
		flat := strings.TrimSuffix(path.Base(local), ".vmdk") + "-flat.vmdk"
		desc := flatDescriptor(diskSpec{extent: flat, bytes: size, adapter: adapter,
			thin: spec.DiskType == string(types.VirtualDiskTypeThin), hw: 19})
		host := views.creator(ds, n)
		written, hit := size, false
		if ds.Summary.Type == nfs41 {
			if hit, _ = m.bug.strike(host, "CreateVirtualDisk "+req.Name+seenBy(host), size); hit && !views.hostMode() {
				written = 0
			}
		}
		if err := os.WriteFile(local, []byte(desc), 0o644); err != nil {
			return nil, &types.CannotCreateFile{FileFault: types.FileFault{File: req.Name}}
		}
		flatLocal := path.Join(path.Dir(local), flat)
		if err := writeSparse(flatLocal, written); err != nil {
			_ = os.Remove(local)
			return nil, &types.CannotCreateFile{FileFault: types.FileFault{File: req.Name}}
		}
		if hit && views.hostMode() {
			views.strikeShort(host, flatLocal, 0)
		}
		return req.Name, nil
	})
	return &methods.CreateVirtualDisk_TaskBody{Res: &types.CreateVirtualDisk_TaskResponse{Returnval: task.Run()}}
}

func (m *labDiskManager) DeleteVirtualDiskTask(ctx *simulator.Context, req *types.DeleteVirtualDisk_Task) soap.HasFault {
	task := simulator.CreateTask(m, "deleteVirtualDisk", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		_, local, fault := resolveDiskPath(req.Name, req.Datacenter)
		if fault != nil {
			return nil, fault
		}
		if _, err := os.Stat(local); err != nil {
			return nil, &types.FileNotFound{FileFault: types.FileFault{File: req.Name}}
		}
		_, extents := linkFiles(req.Name)
		for _, e := range extents {
			if l, ok := localPath(e); ok {
				_ = os.Remove(l)
			}
		}
		if err := os.Remove(local); err != nil {
			return nil, &types.CannotDeleteFile{FileFault: types.FileFault{File: req.Name}}
		}
		return nil, nil
	})
	return &methods.DeleteVirtualDisk_TaskBody{Res: &types.DeleteVirtualDisk_TaskResponse{Returnval: task.Run()}}
}

// resolveDiskPath finds "[ds] dir/x.vmdk" in the datacenter.
func resolveDiskPath(name string, dcRef *types.ManagedObjectReference) (*simulator.Datastore, string, types.BaseMethodFault) {
	if dcRef == nil {
		return nil, "", &types.InvalidArgument{InvalidProperty: "datacenter"}
	}
	dc, ok := simulator.Map.Get(*dcRef).(*simulator.Datacenter)
	if !ok {
		return nil, "", &types.ManagedObjectNotFound{Obj: *dcRef}
	}
	dsName, rel, ok := splitDSPath(name)
	if !ok || rel == "" {
		return nil, "", &types.InvalidDatastorePath{DatastorePath: name}
	}
	ds, ok := simulator.Map.FindByName(dsName, dc.Datastore).(*simulator.Datastore)
	if !ok {
		return nil, "", &types.InvalidDatastore{Name: dsName}
	}
	return ds, path.Join(ds.Info.GetDatastoreInfo().Url, rel), nil
}
