package main

// SearchDatastore_Task and SearchDatastoreSubFolders_Task that show what is
// on the datastore, sizes included. 0.24.2's browser has three gaps that
// matter to nfsagent, which compares each descriptor with its extent's size:
//   - a 0-byte file has no <fileSize> (the field is omitempty), so "empty"
//     and "size not asked for" look the same;
//   - without matchPattern nothing matches (ESXi: everything does);
//   - VmDiskFileQuery details (capacityKb, thin, ...) are never filled in.
// labBrowser wraps every HostDatastoreBrowser (datastores' and hosts') and
// answers from the datastore directory itself, with sizes as one host sees
// them (hostview.go: -thin-sizes, the NFS 4.1 bug's view) and, with
// -browser-extents hide, without extent files, as hostd.
//
// The result types below are look-alikes of the vim25 types, named exactly
// like them because the encoder writes the Go type name as xsi:type; their
// fileSize is a pointer, so a size that was asked for is always written,
// 0 included.

import (
	"flag"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// HostDatastoreBrowserSearchResults mirrors types.HostDatastoreBrowserSearchResults.
type HostDatastoreBrowserSearchResults struct {
	Datastore  *types.ManagedObjectReference `xml:"datastore,omitempty"`
	FolderPath string                        `xml:"folderPath,omitempty"`
	File       []types.AnyType               `xml:"file,omitempty,typeattr"`
}

// ArrayOfHostDatastoreBrowserSearchResults mirrors the vim25 array type.
type ArrayOfHostDatastoreBrowserSearchResults struct {
	HostDatastoreBrowserSearchResults []HostDatastoreBrowserSearchResults `xml:"HostDatastoreBrowserSearchResults,omitempty"`
}

// FileInfo mirrors types.FileInfo, with fileSize written whenever set.
type FileInfo struct {
	Path         string     `xml:"path"`
	FriendlyName string     `xml:"friendlyName,omitempty"`
	FileSize     *int64     `xml:"fileSize,omitempty"`
	Modification *time.Time `xml:"modification,omitempty"`
	Owner        string     `xml:"owner,omitempty"`
}

// The FileInfo subtypes ESXi returns; only VmDiskFileInfo has fields of its own
// that the lab fills in.
type (
	FolderFileInfo      struct{ FileInfo }
	VmConfigFileInfo    struct{ FileInfo }
	VmLogFileInfo       struct{ FileInfo }
	VmNvramFileInfo     struct{ FileInfo }
	VmSnapshotFileInfo  struct{ FileInfo }
	IsoImageFileInfo    struct{ FileInfo }
	FloppyImageFileInfo struct{ FileInfo }
	VmDiskFileInfo      struct {
		FileInfo
		DiskType        string   `xml:"diskType,omitempty"`
		CapacityKb      *int64   `xml:"capacityKb,omitempty"`
		HardwareVersion *int32   `xml:"hardwareVersion,omitempty"`
		ControllerType  string   `xml:"controllerType,omitempty"`
		DiskExtents     []string `xml:"diskExtents,omitempty"`
		Thin            *bool    `xml:"thin,omitempty"`
	}
)

// labBrowser answers as one host sees the files (hostview.go): a host's
// browser as that host, a datastore's as a host drawn like vCenter's
// /folder (-vc-folder-host).
type labBrowser struct {
	simulator.HostDatastoreBrowser
	host types.ManagedObjectReference // HostSystem.datastoreBrowser's host; unset for Datastore.browser
}

// hideExtents is -browser-extents hide: hostd lists a disk by its
// descriptor only (esxi-reality.md #3).
var hideExtents bool

// browsing wraps the datastores' browsers that exist at start (NFS
// datastores get a labBrowser when they are created, nfsmount.go) and gives
// each host a browser of its own (0.24.2's hosts all name one that does not
// exist).
type browsing struct {
	extents string // -browser-extents
}

func (b *browsing) flags(fs *flag.FlagSet) {
	fs.StringVar(&b.extents, "browser-extents", "hide",
		"extent files (-flat, -delta, -sesparse .vmdk) in SearchDatastore_Task results: hide (realistic: never listed, whatever the query or pattern) or show (legacy)")
}

func (b *browsing) setup(l *lab) error {
	switch b.extents {
	case "hide", "show":
		hideExtents = b.extents == "hide"
	default:
		return fmt.Errorf("-browser-extents %q: want hide or show", b.extents)
	}
	for _, e := range simulator.Map.All("Datastore") {
		if br, ok := simulator.Map.Get(e.(*simulator.Datastore).Browser).(*simulator.HostDatastoreBrowser); ok {
			simulator.Map.Put(&labBrowser{HostDatastoreBrowser: *br})
		}
	}
	for _, h := range sortedHosts() {
		br := &labBrowser{host: h.Self}
		br.Self.Type = "HostDatastoreBrowser"
		br.Datastore = h.Datastore
		h.DatastoreBrowser = simulator.Map.Put(br).Reference()
	}
	return nil
}

func (b *labBrowser) SearchDatastoreTask(ctx *simulator.Context, req *types.SearchDatastore_Task) soap.HasFault {
	task := b.task("search", req.DatastorePath, req.SearchSpec, false)
	return &methods.SearchDatastore_TaskBody{Res: &types.SearchDatastore_TaskResponse{Returnval: task}}
}

func (b *labBrowser) SearchDatastoreSubFoldersTask(ctx *simulator.Context, req *types.SearchDatastoreSubFolders_Task) soap.HasFault {
	task := b.task("searchSubFolders", req.DatastorePath, req.SearchSpec, true)
	return &methods.SearchDatastoreSubFolders_TaskBody{Res: &types.SearchDatastoreSubFolders_TaskResponse{Returnval: task}}
}

func (b *labBrowser) task(op, dsPath string, spec *types.HostDatastoreBrowserSearchSpec, recurse bool) types.ManagedObjectReference {
	if spec == nil {
		spec = &types.HostDatastoreBrowserSearchSpec{}
	}
	task := simulator.CreateTask(b, op, func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		name, rel, ok := splitDSPath(dsPath)
		if !ok {
			return nil, &types.InvalidDatastorePath{DatastorePath: dsPath}
		}
		ds := datastoreNamed(name)
		if ds == nil {
			return nil, &types.InvalidDatastore{Name: name}
		}
		t.Info.Entity, t.Info.EntityName = &ds.Self, ds.Name
		host, _ := simulator.Map.Get(b.host).(*simulator.HostSystem)
		if b.host.Value == "" {
			host = views.draw(ds)
		}
		s := &search{spec: spec, ds: ds, host: host, recurse: recurse}
		dir := path.Join(ds.Info.GetDatastoreInfo().Url, rel)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, &types.FileNotFound{FileFault: types.FileFault{File: dsPath}}
		}
		s.folder(dsPath, name, rel, dir)
		if recurse {
			return ArrayOfHostDatastoreBrowserSearchResults{HostDatastoreBrowserSearchResults: s.res}, nil
		}
		return s.res[0], nil
	})
	if op == "search" {
		task.Info.Name = "SearchDatastore_Task"
	} else {
		task.Info.Name = "SearchDatastoreSubFolders_Task"
	}
	task.Info.DescriptionId = "HostDatastoreBrowser." + op
	return task.Run()
}

type search struct {
	spec    *types.HostDatastoreBrowserSearchSpec
	ds      *simulator.Datastore
	host    *simulator.HostSystem // whose view of the files
	recurse bool
	res     []HostDatastoreBrowserSearchResults
}

// folder searches one folder; folderPath is the path asked for at the top,
// "[ds] dir/sub" below it.
func (s *search) folder(folderPath, ds, rel, dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	res := HostDatastoreBrowserSearchResults{Datastore: &s.ds.Self, FolderPath: folderPath}
	at := len(s.res)
	s.res = append(s.res, res)
	var subs []os.DirEntry
	for _, e := range entries {
		if e.IsDir() {
			subs = append(subs, e)
		}
		if !s.matches(e.Name()) || hideExtents && isDataExtent(e.Name()) {
			continue
		}
		if info := s.info(ds, rel, dir, e); info != nil {
			res.File = append(res.File, info)
		}
	}
	s.res[at] = res
	if s.recurse {
		for _, e := range subs {
			sub := path.Join(rel, e.Name())
			s.folder(joinDSPath(ds, sub), ds, sub, path.Join(dir, e.Name()))
		}
	}
}

func (s *search) matches(name string) bool {
	if len(s.spec.MatchPattern) == 0 {
		return true
	}
	if isTrue(s.spec.SearchCaseInsensitive) {
		name = strings.ToLower(name)
	}
	for _, p := range s.spec.MatchPattern {
		if isTrue(s.spec.SearchCaseInsensitive) {
			p = strings.ToLower(p)
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func isTrue(b *bool) bool { return b != nil && *b }

// isExtent tells a disk's data files from its descriptor by name, as ESXi's
// VmDiskFileQuery does.
func isExtent(name string) bool {
	for _, suffix := range []string{"-flat.vmdk", "-delta.vmdk", "-sesparse.vmdk", "-ctk.vmdk", "-rdm.vmdk", "-rdmp.vmdk"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// info returns the FileInfo for one entry, typed by the query it matches,
// or nil if no query matches it.
func (s *search) info(ds, rel, dir string, e os.DirEntry) types.AnyType {
	name := e.Name()
	seen, err := views.stat(s.host, path.Join(dir, name))
	if err != nil {
		return nil
	}
	st := seen.info
	base := FileInfo{Path: name}
	details := s.spec.Details
	if details == nil {
		details = &types.FileQueryFlags{}
	}
	if details.FileSize {
		size := views.reportedSize(name, seen)
		base.FileSize = &size
	}
	if details.Modification {
		m := st.ModTime()
		base.Modification = &m
	}
	if isTrue(details.FileOwner) {
		base.Owner = "root"
	}

	ext := path.Ext(name)
	var anyFile bool
	for _, q := range s.queries() {
		switch q := q.(type) {
		case *types.FileQuery:
			anyFile = true
		case *types.FolderFileQuery:
			if e.IsDir() {
				return &FolderFileInfo{base}
			}
		case *types.VmDiskFileQuery:
			if ext == ".vmdk" && !isExtent(name) && !e.IsDir() {
				return s.disk(base, ds, rel, dir, q)
			}
		case *types.VmConfigFileQuery:
			if ext == ".vmx" {
				return &VmConfigFileInfo{base}
			}
		case *types.VmLogFileQuery:
			if ext == ".log" && strings.HasPrefix(name, "vmware") {
				return &VmLogFileInfo{base}
			}
		case *types.VmNvramFileQuery:
			if ext == ".nvram" {
				return &VmNvramFileInfo{base}
			}
		case *types.VmSnapshotFileQuery:
			if ext == ".vmsn" {
				return &VmSnapshotFileInfo{base}
			}
		case *types.IsoImageFileQuery:
			if ext == ".iso" {
				return &IsoImageFileInfo{base}
			}
		case *types.FloppyImageFileQuery:
			if ext == ".flp" || ext == ".img" {
				return &FloppyImageFileInfo{base}
			}
		}
	}
	if !anyFile {
		return nil
	}
	switch {
	case e.IsDir():
		return &FolderFileInfo{base}
	case !details.FileType || isExtent(name):
		return &base
	}
	switch ext {
	case ".vmdk":
		return &VmDiskFileInfo{FileInfo: base}
	case ".vmx":
		return &VmConfigFileInfo{base}
	case ".log":
		return &VmLogFileInfo{base}
	case ".nvram":
		return &VmNvramFileInfo{base}
	case ".vmsn":
		return &VmSnapshotFileInfo{base}
	case ".iso":
		return &IsoImageFileInfo{base}
	}
	return &base
}

// queries are the spec's queries, the specific ones first so that a
// descriptor is a VmDiskFileInfo even when FileQuery is asked for too; no
// query means FileQuery.
func (s *search) queries() []types.BaseFileQuery {
	var specific, generic []types.BaseFileQuery
	for _, q := range s.spec.Query {
		if _, ok := q.(*types.FileQuery); ok {
			generic = append(generic, q)
		} else {
			specific = append(specific, q)
		}
	}
	if len(s.spec.Query) == 0 {
		generic = append(generic, &types.FileQuery{})
	}
	return append(specific, generic...)
}

// disk reads a descriptor for the VmDiskFileQuery details asked for.
func (s *search) disk(base FileInfo, ds, rel, dir string, q *types.VmDiskFileQuery) *VmDiskFileInfo {
	info := &VmDiskFileInfo{FileInfo: base}
	d, ok := readDescriptor(path.Join(dir, base.Path))
	if !ok || q.Details == nil {
		return info
	}
	f := q.Details
	if f.DiskType {
		info.DiskType = "VirtualDiskFlatVer2BackingInfo"
		if strings.EqualFold(d.createType, "seSparse") {
			info.DiskType = "VirtualDiskSeSparseBackingInfo"
		}
	}
	if f.CapacityKb {
		kb := d.sectors() * sectorSize / 1024
		info.CapacityKb = &kb
	}
	if f.HardwareVersion {
		var hw int32
		for _, c := range d.ddb["ddb.virtualHWVersion"] {
			if c >= '0' && c <= '9' {
				hw = hw*10 + int32(c-'0')
			}
		}
		info.HardwareVersion = &hw
	}
	if isTrue(f.ControllerType) {
		info.ControllerType = map[string]string{
			"lsilogic": "VirtualLsiLogicController", "buslogic": "VirtualBusLogicController",
			"ide": "VirtualIDEController", "lsisas1068": "VirtualLsiLogicSASController",
			"pvscsi": "ParaVirtualSCSIController",
		}[d.ddb["ddb.adapterType"]]
	}
	if isTrue(f.DiskExtents) {
		for _, e := range d.extents {
			info.DiskExtents = append(info.DiskExtents, joinDSPath(ds, path.Join(rel, e.file)))
		}
	}
	if isTrue(f.Thin) {
		thin := d.ddb["ddb.thinProvisioned"] == "1"
		info.Thin = &thin
	}
	return info
}
