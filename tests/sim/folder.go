package main

// GET and HEAD of /folder files, as one host sees them (hostview.go), on
// vCenter's listener (sessions.go: served as a host drawn from those that
// mount the datastore) and on the ESXi hosts' endpoint (hostendpoint.go:
// as the ticket's host). 0.24.2 hands /folder to http.FileServer, which
// knows nothing of hosts and honours every Range form. What clients may
// count on (esxi-reality.md #4): HEAD gives the length, Range bytes=N- and
// bytes=N-M work (206; 416 from the end on); a suffix range bytes=-N is not
// known to work, so by default it is ignored (200, the whole file). Other
// forms (several ranges, nonsense) are ignored too.
//
// -locked-extents: the extent of a powered-on VM is locked by its host, and
// reading it answers 500 "Device or resource busy" (esxi-reality.md #8).
// Directories and PUT/POST stay with the simulator.

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type folderServer struct {
	suffix string // -suffix-ranges: ignore or honour
	locked string // -locked-extents: off, get or all
}

func (f *folderServer) flags(fs *flag.FlagSet) {
	fs.StringVar(&f.suffix, "suffix-ranges", "ignore",
		"/folder GET with Range bytes=-N: ignore (realistic: 200 with the whole file) or honour (206 with the last N bytes)")
	fs.StringVar(&f.locked, "locked-extents", "get",
		"/folder of a disk extent of a powered-on VM: off (legacy: served), get (realistic: GET answers 500 \"Device or resource busy\", HEAD works) or all (HEAD too)")
}

func (f *folderServer) setup(*lab) error {
	switch f.suffix {
	case "ignore", "honour":
	default:
		return fmt.Errorf("-suffix-ranges %q: want ignore or honour", f.suffix)
	}
	switch f.locked {
	case "off", "get", "all":
	default:
		return fmt.Errorf("-locked-extents %q: want off, get or all", f.locked)
	}
	return nil
}

// folderTarget is the datastore and path a /folder GET or HEAD names:
// dsName and the path after /folder/, which cannot leave the datastore. nil
// for other methods.
func folderTarget(r *http.Request) (*simulator.Datastore, string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, ""
	}
	ds := datastoreNamed(r.URL.Query().Get("dsName"))
	if ds == nil {
		return nil, ""
	}
	rel := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, "/folder/")), "/")
	return ds, rel
}

// serve answers a GET or HEAD (folderTarget) of rel on ds as host sees it
// (nil: the export's file). It returns false, writing nothing, for anything
// but a regular file there.
func (f *folderServer) serve(w http.ResponseWriter, r *http.Request, ds *simulator.Datastore, rel string, host *simulator.HostSystem) bool {
	local := path.Join(ds.Info.GetDatastoreInfo().Url, rel)
	seen, err := views.stat(host, local)
	if err != nil || !seen.info.Mode().IsRegular() {
		return false
	}
	if (f.locked == "all" || f.locked == "get" && r.Method == http.MethodGet) && lockedExtent(local) {
		http.Error(w, "Device or resource busy", http.StatusInternalServerError)
		return true
	}
	n := seen.length
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Accept-Ranges", "bytes")
	h.Set("Last-Modified", seen.info.ModTime().UTC().Format(http.TimeFormat))
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.FormatInt(n, 10))
		w.WriteHeader(http.StatusOK)
		return true
	}
	start, end, status := f.byteRange(r.Header.Get("Range"), n)
	switch status {
	case http.StatusRequestedRangeNotSatisfiable:
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", n))
		h.Del("Content-Type")
		w.WriteHeader(status)
		return true
	case http.StatusPartialContent:
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, n))
	}
	file, err := os.Open(local)
	if err != nil {
		http.Error(w, "Device or resource busy", http.StatusInternalServerError)
		return true
	}
	defer file.Close()
	h.Set("Content-Length", strconv.FormatInt(end-start+1, 10))
	w.WriteHeader(status)
	_, _ = io.Copy(w, io.NewSectionReader(file, start, end-start+1))
	return true
}

// byteRange reads a Range header for a file of n bytes: the first and last
// byte to send and the status (200: the whole file).
func (f *folderServer) byteRange(header string, n int64) (int64, int64, int) {
	whole := func() (int64, int64, int) { return 0, n - 1, http.StatusOK }
	spec := strings.TrimPrefix(header, "bytes=")
	if spec == header || strings.Contains(spec, ",") {
		return whole()
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return whole()
	}
	if first == "" { // bytes=-N
		k, err := strconv.ParseInt(last, 10, 64)
		if f.suffix != "honour" || err != nil || k <= 0 || n == 0 {
			return whole()
		}
		if k > n {
			k = n
		}
		return n - k, n - 1, http.StatusPartialContent
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return whole()
	}
	end := n - 1
	if last != "" {
		if end, err = strconv.ParseInt(last, 10, 64); err != nil || end < start {
			return whole()
		}
		if end > n-1 {
			end = n - 1
		}
	}
	if start >= n {
		return 0, 0, http.StatusRequestedRangeNotSatisfiable
	}
	return start, end, http.StatusPartialContent
}

// lockedExtent says whether local is a disk extent of a powered-on VM.
func lockedExtent(local string) bool {
	if !isDataExtent(local) {
		return false
	}
	target := resolvePath(local)
	for _, e := range simulator.Map.All("VirtualMachine") {
		vm, ok := e.(*simulator.VirtualMachine)
		if !ok {
			continue
		}
		var names []string
		simulator.Map.WithLock(vm, func() {
			if vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn || vm.LayoutEx == nil {
				return
			}
			for _, file := range vm.LayoutEx.File {
				if file.Type == string(types.VirtualMachineFileLayoutExFileTypeDiskExtent) {
					names = append(names, file.Name)
				}
			}
		})
		for _, name := range names {
			if l, ok := localPath(name); ok && resolvePath(l) == target {
				return true
			}
		}
	}
	return false
}
