package main

// Mounting and unmounting NFS datastores on a host, as ESXi and vCenter do
// (nfs.go has the server side and the reasons).
//
// CreateNasDatastore(spec): spec.localPath is the datastore name, type NFS
// (default) or NFS41. vCenter shows one NFS datastore mounted on several
// hosts as one Datastore object, so a mount whose name already exists in the
// datacenter with the same export and type joins that datastore (the host is
// added to Datastore.host); the same name with another export or type is
// DuplicateName, a second mount on the same host AlreadyExists. The same
// export under another name, or over the other protocol, is allowed: ESXi
// does not stop mixing NFS 3 and 4.1 on one export (nfsagent must).
//
// RemoveDatastore(datastore) unmounts from this host; with no host left the
// Datastore leaves the inventory (the export's files stay: they are the NFS
// server's). It is refused with ResourceInUse while a VM registered on this
// host has files there.

import (
	"crypto/sha1"
	"fmt"
	"log"
	"sort"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	nfs3  = "NFS"
	nfs41 = "NFS41"
	// maxNFSFileSize is what ESXi reports as an NFS datastore's largest
	// file (62 TB); the simulator would report the free space.
	maxNFSFileSize = 62 << 40
)

type nasDatastoreSystem struct {
	simulator.HostDatastoreSystem
	nfs *nfsServer
}

func (dss *nasDatastoreSystem) CreateNasDatastore(ctx *simulator.Context, req *types.CreateNasDatastore) soap.HasFault {
	ref, fault := dss.nfs.mount(dss, &req.Spec)
	if fault != nil {
		return &methods.CreateNasDatastoreBody{Fault_: fault}
	}
	return &methods.CreateNasDatastoreBody{Res: &types.CreateNasDatastoreResponse{Returnval: ref}}
}

func (dss *nasDatastoreSystem) RemoveDatastore(ctx *simulator.Context, req *types.RemoveDatastore) soap.HasFault {
	if fault := dss.nfs.unmount(dss, req.Datastore); fault != nil {
		return &methods.RemoveDatastoreBody{Fault_: fault}
	}
	return &methods.RemoveDatastoreBody{Res: new(types.RemoveDatastoreResponse)}
}

func (dss *nasDatastoreSystem) host() *simulator.HostSystem {
	h, _ := simulator.Map.Get(dss.Host.Self).(*simulator.HostSystem)
	return h
}

// mount performs CreateNasDatastore on dss's host.
func (n *nfsServer) mount(dss *nasDatastoreSystem, spec *types.HostNasVolumeSpec) (types.ManagedObjectReference, *soap.Fault) {
	var none types.ManagedObjectReference
	n.mu.Lock()
	defer n.mu.Unlock()
	host := dss.host()
	kind := spec.Type
	if kind == "" {
		kind = nfs3
	}
	mode := spec.AccessMode
	if mode == "" {
		mode = string(types.HostMountModeReadWrite)
	}
	name := spec.LocalPath
	servers := []string{spec.RemoteHost}
	if kind == nfs41 && len(spec.RemoteHostNames) > 0 {
		servers = spec.RemoteHostNames
	}
	switch {
	case kind != nfs3 && kind != nfs41:
		return none, simulator.Fault("NAS volume type "+kind+" is not supported.", &types.NotSupported{})
	case mode != string(types.HostMountModeReadWrite) && mode != string(types.HostMountModeReadOnly):
		return none, invalidArgument("spec.accessMode")
	case name == "":
		return none, invalidArgument("spec.localPath")
	case servers[0] == "":
		return none, invalidArgument("spec.remoteHost")
	case spec.RemotePath == "":
		return none, invalidArgument("spec.remotePath")
	}
	conns := n.nconn.take(dss.Self.Value, name)
	if conns != 0 {
		if fault := nconnectFault(host, kind, conns); fault != nil {
			return none, fault
		}
		log.Printf("CreateNasDatastore %s on %s: connections %d", name, host.Name, conns)
	}
	export := n.lookup(servers[0], spec.RemotePath)
	if export == nil {
		return none, mountDenied(servers[0], spec.RemotePath)
	}

	dc := datacenterOf(host)
	if e := simulator.Map.FindByName(name, dc.Datastore); e != nil {
		ds := e.(*simulator.Datastore)
		info, ok := ds.Info.(*types.NasDatastoreInfo)
		if !ok || info.Nas == nil || info.Nas.Type != kind || info.Nas.RemoteHost != servers[0] ||
			info.Nas.RemotePath != spec.RemotePath {
			return none, simulator.Fault(fmt.Sprintf("The name '%s' already exists.", name),
				&types.DuplicateName{Name: name, Object: ds.Self})
		}
		if simulator.FindReference(host.Datastore, ds.Self) != nil {
			return none, simulator.Fault(fmt.Sprintf("The specified key, name, or identifier '%s' already exists.", name),
				&types.AlreadyExists{Name: name})
		}
		addMount(ds, host, mode)
		attach(dss, host, ds.Self)
		return ds.Self, nil
	}

	// The volume id is stable for a name, export and protocol, as ESXi's
	// is for a mount.
	sum := sha1.Sum([]byte(kind + "\x00" + servers[0] + "\x00" + spec.RemotePath + "\x00" + name))
	id := fmt.Sprintf("%x-%x", sum[0:4], sum[4:8])
	if err := n.link(id, export); err != nil {
		return none, simulator.Fault(err.Error(), &types.HostConfigFault{})
	}
	ds := newNasDatastore(name, "ds:///vmfs/volumes/"+id+"/", kind, servers, spec)
	folder := simulator.Map.Get(dc.DatastoreFolder).(*simulator.Folder)
	simulator.Map.WithLock(folder, func() {
		// ChildEntity first: container views decide membership on Put.
		folder.ChildEntity = append(folder.ChildEntity, ds.Self)
		simulator.Map.PutEntity(folder, ds)
	})
	simulator.Map.AddReference(dc, &dc.Datastore, ds.Self)
	addMount(ds, host, mode)
	attach(dss, host, ds.Self)
	return ds.Self, nil
}

// mountDenied is ESXi's answer when the NAS refuses a mount (here: an
// export it does not have): the faultstring is generic, the reason is only
// in faultMessage (govc's datastore.create unwraps faultMessage[0]).
func mountDenied(server, path string) *soap.Fault {
	text := fmt.Sprintf("NFS mount %s:%s failed: The mount request was denied by the NFS server. "+
		"Check that the export exists and that the client is permitted to mount it.", server, path)
	f := &types.PlatformConfigFault{Text: text}
	f.FaultMessage = []types.LocalizableMessage{{Key: "vob.vmfs.nfs.mount.error.perm.denied", Message: text}}
	return simulator.Fault("An error occurred during host configuration.", f)
}

// newNasDatastore builds the Datastore for a first mount.
func newNasDatastore(name, url, kind string, servers []string, spec *types.HostNasVolumeSpec) *simulator.Datastore {
	ds := &simulator.Datastore{}
	ds.Name = name
	ds.Self.Type = "Datastore"
	simulator.Map.NewEntity(ds)
	nas := &types.HostNasVolume{
		HostFileSystemVolume: types.HostFileSystemVolume{Type: kind, Name: name},
		RemoteHost:           servers[0],
		RemotePath:           spec.RemotePath,
		RemoteHostNames:      servers[:1],
	}
	if kind == nfs41 {
		nas.RemoteHostNames = append([]string(nil), servers...)
		nas.SecurityType = spec.SecurityType
		if nas.SecurityType == "" {
			nas.SecurityType = string(types.HostNasVolumeSecurityTypeAUTH_SYS)
		}
	}
	ds.Info = &types.NasDatastoreInfo{DatastoreInfo: types.DatastoreInfo{Name: name, Url: url}, Nas: nas}
	ds.Summary = types.DatastoreSummary{
		Datastore:          &ds.Self,
		Name:               name,
		Url:                url,
		Accessible:         true,
		MultipleHostAccess: types.NewBool(false),
		Type:               kind,
		MaintenanceMode:    string(types.DatastoreSummaryMaintenanceModeStateNormal),
	}
	ds.Capability = types.DatastoreCapability{
		DirectoryHierarchySupported:      true,
		PerFileThinProvisioningSupported: true,
		StorageIORMSupported:             types.NewBool(true),
		NativeSnapshotSupported:          types.NewBool(false),
		TopLevelDirectoryCreateSupported: types.NewBool(true),
		SeSparseSupported:                types.NewBool(true),
	}
	browser := &labBrowser{}
	browser.Self.Type = "HostDatastoreBrowser"
	browser.Datastore = []types.ManagedObjectReference{ds.Self}
	ds.Browser = simulator.Map.Put(browser).Reference()
	refreshSpace(ds)
	return ds
}

// refreshSpace reads capacity and free space of the export (statfs).
func refreshSpace(ds *simulator.Datastore) {
	_ = ds.RefreshDatastore(&types.RefreshDatastore{This: ds.Self})
	if info, ok := ds.Info.(*types.NasDatastoreInfo); ok {
		info.MaxFileSize = maxNFSFileSize
		info.MaxVirtualDiskCapacity = maxNFSFileSize
		if info.Nas != nil {
			info.Nas.Capacity = ds.Summary.Capacity
		}
	}
}

// addMount adds host to Datastore.host.
func addMount(ds *simulator.Datastore, host *simulator.HostSystem, mode string) {
	simulator.Map.WithLock(ds, func() {
		mounts := append(append([]types.DatastoreHostMount(nil), ds.Host...), types.DatastoreHostMount{
			Key: host.Self,
			MountInfo: types.HostMountInfo{
				Path:       "/vmfs/volumes/" + ds.Name,
				AccessMode: mode,
				Mounted:    types.NewBool(true),
				Accessible: types.NewBool(true),
			},
		})
		// By host name, so that listings do not depend on mount order.
		sort.SliceStable(mounts, func(i, j int) bool { return hostName(mounts[i].Key) < hostName(mounts[j].Key) })
		simulator.Map.Update(ds, []types.PropertyChange{
			{Name: "host", Val: mounts},
			{Name: "summary.multipleHostAccess", Val: len(mounts) > 1},
		})
	})
}

// attach adds the datastore to the host's lists (host, its datastore
// system, its compute resource).
func attach(dss *nasDatastoreSystem, host *simulator.HostSystem, ref types.ManagedObjectReference) {
	simulator.Map.WithLock(host, func() {
		list := append(append([]types.ManagedObjectReference(nil), host.Datastore...), ref)
		simulator.Map.Update(host, []types.PropertyChange{{Name: "datastore", Val: list}})
		dss.Datastore = append([]types.ManagedObjectReference(nil), list...)
	})
	if obj, cr := computeResourceOf(host); cr != nil {
		simulator.Map.AddReference(obj, &cr.Datastore, ref)
	}
}

// unmount performs RemoveDatastore on dss's host.
func (n *nfsServer) unmount(dss *nasDatastoreSystem, ref types.ManagedObjectReference) *soap.Fault {
	n.mu.Lock()
	defer n.mu.Unlock()
	host := dss.host()
	ds, ok := simulator.Map.Get(ref).(*simulator.Datastore)
	if !ok || simulator.FindReference(host.Datastore, ref) == nil {
		return simulator.Fault("The object or item referred to could not be found.", &types.NotFound{})
	}
	for _, vmRef := range host.Vm {
		vm, ok := simulator.Map.Get(vmRef).(*simulator.VirtualMachine)
		if ok && simulator.FindReference(vm.Datastore, ref) != nil {
			return simulator.Fault(fmt.Sprintf("The resource '%s' is in use.", ds.Name),
				&types.ResourceInUse{Type: "Datastore", Name: ds.Name})
		}
	}

	simulator.Map.WithLock(host, func() {
		var list []types.ManagedObjectReference
		for _, r := range host.Datastore {
			if r != ref {
				list = append(list, r)
			}
		}
		simulator.Map.Update(host, []types.PropertyChange{{Name: "datastore", Val: list}})
		dss.Datastore = append([]types.ManagedObjectReference(nil), list...)
	})
	var left []types.DatastoreHostMount
	simulator.Map.WithLock(ds, func() {
		for _, m := range ds.Host {
			if m.Key != host.Self {
				left = append(left, m)
			}
		}
		simulator.Map.Update(ds, []types.PropertyChange{
			{Name: "host", Val: left},
			{Name: "summary.multipleHostAccess", Val: len(left) > 1},
		})
	})
	// The compute resource keeps the datastore while another of its hosts
	// mounts it.
	if obj, cr := computeResourceOf(host); cr != nil {
		still := false
		for _, h := range cr.Host {
			if other, ok := simulator.Map.Get(h).(*simulator.HostSystem); ok &&
				simulator.FindReference(other.Datastore, ref) != nil {
				still = true
			}
		}
		if !still {
			simulator.Map.RemoveReference(obj, &cr.Datastore, ref)
		}
	}
	if len(left) == 0 && !mountedAnywhere(ref) {
		removeDatastore(ds)
	}
	return nil
}

func mountedAnywhere(ref types.ManagedObjectReference) bool {
	for _, e := range simulator.Map.All("HostSystem") {
		if h, ok := e.(*simulator.HostSystem); ok && simulator.FindReference(h.Datastore, ref) != nil {
			return true
		}
	}
	return false
}

// removeDatastore takes an unmounted datastore out of the inventory.
func removeDatastore(ds *simulator.Datastore) {
	if dc := datacenterOf(ds); dc != nil {
		simulator.Map.RemoveReference(dc, &dc.Datastore, ds.Self)
	}
	if ds.Parent != nil {
		if folder, ok := simulator.Map.Get(*ds.Parent).(*simulator.Folder); ok {
			simulator.Map.RemoveReference(folder, &folder.ChildEntity, ds.Self)
		}
	}
	simulator.Map.Remove(ds.Browser)
	simulator.Map.Remove(ds.Self)
}

func hostName(ref types.ManagedObjectReference) string {
	if h, ok := simulator.Map.Get(ref).(*simulator.HostSystem); ok {
		return h.Name
	}
	return ref.Value
}

func invalidArgument(property string) *soap.Fault {
	return simulator.Fault("A specified parameter was not correct: "+property,
		&types.InvalidArgument{InvalidProperty: property})
}
