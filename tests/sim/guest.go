package main

// Guest operations over a per-VM guest root directory.
//
// 0.24.2 implements only InitiateFileTransferToGuest/FromGuest, and only for
// VMs backed by a Docker container (none here): every other VM gets
// GuestOperationsUnavailable, and the process manager has no methods at all.
// The lab answers the guest calls itself, in the front (lab.go), for a
// "guest" that is a directory: DIR/guests/<vm moref>/, made on first use
// with tmp, var/tmp, root, home, mnt and dev in it.
//
// Guest paths. A guest path /x/y is the file ROOT/x/y (ROOT = that VM's
// guest root); ".." cannot climb out of ROOT. File calls (transfers,
// MakeDirectory, Delete*, CreateTemporary*) and workingDirectory map any
// absolute path this way, /dev/sdb included (a regular file in ROOT/dev).
//
// Programs. StartProgramInGuest runs the program for real, on this
// machine, as the lab's user, the way VMware Tools on Linux does it:
// /bin/sh -c '<programPath> <arguments>', in its own process group, with
// the working directory mapped into ROOT. The guest is a folder, not a
// machine, so absolute paths in the command line are rewritten (see
// rewriteArgs): at a word start, /tmp, /var/tmp, /root, /home, /mnt and
// /data (followed by "/" or the end of the word) and device stems such as
// /dev/sd get ROOT put in front; /bin/sh, /usr/bin/fio and the like stay the
// machine's. An uploaded *.fio job file gets its directory=, filename=,
// opendir=, filename_format= and write_*_log= paths mapped into ROOT before
// it is written (see rewriteFioJob), so a job with directory=/var/tmp/x or
// filename=/dev/sdb does its I/O inside ROOT. This keeps well-behaved
// programs inside ROOT; it is not a sandbox.
//
// Checks on every call, in this order: the VM exists (ManagedObjectNotFound),
// is powered on (InvalidPowerState), has Tools running with guest
// operations ready (GuestOperationsUnavailable), and the credentials are
// -guest-user/-guest-password (InvalidGuestLogin). -tools-running sets
// which VMs have Tools running.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	procListKeep = 5 * time.Minute // ended processes stay listed this long
	procHistory  = time.Hour       // and count for performance samples this long
	transferLife = 30 * time.Minute
)

// guestDirs are created in every guest root.
var guestDirs = []string{"tmp", "var/tmp", "root", "home", "mnt", "dev"}

// guestOps is the guest-operations feature; it also carries the
// performance counters (perf.go), whose values follow the guest processes.
type guestOps struct {
	user, password string
	logPath        string
	tools          toolsList
	fio            guestFio
	perf           perfStats
	hosts          *hostEndpoint // where transfer URLs point (hostendpoint.go)
	nas            *nasModel     // whose counters a guest's fio moves (nasio.go)

	l        *lab
	managers map[string]types.ManagedObjectReference // "file", "process", "auth"

	mu        sync.Mutex
	roots     map[string]bool                 // guest roots made, by vm moref value
	procs     map[string]map[int64]*guestProc // by vm moref value, pid
	transfers map[string]*guestTransfer       // by id
	serial    int64
	logMu     sync.Mutex
	logFile   *os.File

	boot       time.Time // this machine's start: /proc's process start times count from it
	fioLogPath string    // -guest-fio-log (guestprocs.go)
	fioFail    string    // -guest-fio-fail: the VM whose fio dies mid-run
	fioLate    string    // -guest-fio-late: the VM whose fio starts late
	fioLogs    string    // -guest-fio-spoil-logs: VM=broken|missing|bw-broken|behind,...: their fio's interval logs spoiled
	fioLog     *os.File
	stopWatch  chan struct{} // ends watchFio
}

// guestProc is a program started with StartProgramInGuest.
type guestProc struct {
	pid        int64
	name       string // programPath
	cmdLine    string // as the guest sees it
	owner      string
	host       types.ManagedObjectReference   // the VM's host at start
	datastores []types.ManagedObjectReference // the VM's datastores at start
	start, end time.Time                      // end zero while running
	exitCode   int32
	done       chan struct{}
}

// guestTransfer is a one-shot /guestFile URL.
type guestTransfer struct {
	token   string
	put     bool
	vm      string
	guest   string // guest path
	local   string // file in the guest root
	root    string
	size    int64
	perm    os.FileMode
	expires time.Time
}

// toolsList is -tools-running: which VMs have VMware Tools running.
type toolsList struct {
	names []string
	set   bool
}

func (t *toolsList) String() string {
	if t.set && len(t.names) == 0 {
		return "none"
	}
	return strings.Join(t.names, ",")
}

func (t *toolsList) Set(v string) error {
	t.set = true
	t.names = nil
	if strings.TrimSpace(v) == "none" {
		return nil
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			t.names = append(t.names, s)
		}
	}
	return nil
}

func (g *guestOps) flags(fs *flag.FlagSet) {
	fs.StringVar(&g.user, "guest-user", "root", "the only guest user name guest operations accept")
	fs.StringVar(&g.password, "guest-password", "secret", "its password")
	fs.StringVar(&g.logPath, "guest-log", "", "append one line per guest operation (and /guestFile transfer) to this file")
	g.tools.names = []string{"fiotest", "db01"}
	fs.Var(&g.tools, "tools-running", "VMs with VMware Tools running, comma-separated, or none; when given, every other VM has Tools not running "+
		"(default: fiotest,db01 get Tools running, other VMs keep theirs)")
	g.fio.mode = "present"
	fs.Var(&g.fio, "guest-fio", "the guests' fio: present (this machine's), missing, old (2.16), no-libaio or slow (a 1 s --version)")
	fs.BoolVar(&g.fio.pace, "guest-fio-pace", true, "hold the guests' fio jobs to a real NFS datastore's rates (37,000 4K writes, 45,000 reads, 930 MB/s writes, 1.1 GB/s reads a second, shared by a run's jobs); false: this machine's speed")
	fs.StringVar(&g.fioLogPath, "guest-fio-log", "", "append \"<unix-ms> <fio-start|fio-end|fio-overlap> <vm> <job>...\" as the guests' fio runs start, end and overlap")
	fs.StringVar(&g.fioFail, "guest-fio-fail", "", "the VM (by name) whose fio jobs are killed a second after they start, leaving no output (a group's member failing mid-run)")
	fs.StringVar(&g.fioLate, "guest-fio-late", "", "the VM (by name) whose fio starts "+fioLateBy.String()+" after it was started, as a guest slow to lay out its file (a group's window shrinks)")
	fs.StringVar(&g.fioLogs, "guest-fio-spoil-logs", "", "VM=broken, VM=missing, VM=bw-broken or VM=behind, comma-separated: once such a VM's fio ends, its histogram interval logs (*_clat_hist.N.log in its working folder) are overwritten with a line fio never writes, or removed; or its bandwidth logs (*_bw.N.log) overwritten; or all its interval logs' times are a minute behind (a guest clock behind, or an earlier run's logs)")
	g.perf.flags(fs)
}

func (g *guestOps) setup(l *lab) error {
	g.l = l
	g.roots = make(map[string]bool)
	g.procs = make(map[string]map[int64]*guestProc)
	g.transfers = make(map[string]*guestTransfer)
	if strings.ContainsAny(l.dir, " \t\n'\"\\$`;&|<>()*?[]:") {
		log.Printf("guest operations: lab directory %q has characters that break the path rewriting of guest command lines", l.dir)
	}

	gomRef := l.client.ServiceContent.GuestOperationsManager
	if gomRef == nil {
		return errors.New("no GuestOperationsManager in the service content")
	}
	gom, ok := simulator.Map.Get(*gomRef).(*simulator.GuestOperationsManager)
	if !ok {
		return errors.New("GuestOperationsManager not found")
	}
	// 0.24.2 sets fileManager and processManager but not authManager.
	if gom.AuthManager == nil {
		gom.AuthManager = &types.ManagedObjectReference{Type: "GuestAuthManager", Value: "guestOperationsAuthManager"}
	}
	if simulator.Map.Get(*gom.AuthManager) == nil {
		am := &guestAuthManager{}
		am.Self = *gom.AuthManager
		simulator.Map.Put(am)
	}
	g.managers = map[string]types.ManagedObjectReference{
		"file":    *gom.FileManager,
		"process": *gom.ProcessManager,
		"auth":    *gom.AuthManager,
	}

	if err := g.applyTools(); err != nil {
		return err
	}
	if err := g.fio.setup(l.dir); err != nil {
		return err
	}
	if g.logPath != "" {
		f, err := os.OpenFile(g.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		g.logFile = f
	}
	g.boot = bootTime()
	if g.fioLogPath != "" {
		f, err := os.OpenFile(g.fioLogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		g.fioLog = f
		g.stopWatch = make(chan struct{})
		go g.watchFio(g.stopWatch)
	}
	g.hosts.serveTransfers(l, g.serveTransfer)
	l.beforeCall(g.intercept)
	l.onClose(g.close)
	return g.perf.setup(l, g)
}

// guestAuthManager is the GuestAuthManager 0.24.2 lacks; the lab answers
// ValidateCredentialsInGuest for it in the front.
type guestAuthManager struct {
	mo.GuestAuthManager
}

// applyTools sets VMware Tools running or not as -tools-running says.
func (g *guestOps) applyTools() error {
	want := make(map[string]bool)
	for _, n := range g.tools.names {
		want[n] = true
	}
	found := make(map[string]bool)
	for _, e := range simulator.Map.All("VirtualMachine") {
		vm, ok := e.(*simulator.VirtualMachine)
		if !ok {
			continue
		}
		switch {
		case want[vm.Name]:
			found[vm.Name] = true
			simulator.Map.WithLock(vm, func() { setTools(vm, true) })
		case g.tools.set:
			simulator.Map.WithLock(vm, func() { setTools(vm, false) })
		}
	}
	if g.tools.set {
		for _, n := range g.tools.names {
			if !found[n] {
				return fmt.Errorf("-tools-running: no VM named %q", n)
			}
		}
	}
	return nil
}

// setTools reports VMware Tools running (and guest operations ready) or
// not running. The caller holds the VM's lock.
func setTools(vm *simulator.VirtualMachine, running bool) {
	status := types.VirtualMachineToolsStatusToolsNotRunning
	run := string(types.VirtualMachineToolsRunningStatusGuestToolsNotRunning)
	state := "notRunning"
	if running {
		status = types.VirtualMachineToolsStatusToolsOk
		run = string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
		state = "running"
	}
	changes := []types.PropertyChange{
		{Name: "guest.toolsStatus", Val: status},
		{Name: "guest.toolsRunningStatus", Val: run},
		{Name: "guest.guestOperationsReady", Val: running},
		{Name: "guest.interactiveGuestOperationsReady", Val: false},
		{Name: "guest.guestState", Val: state},
		{Name: "summary.guest.toolsStatus", Val: status},
		{Name: "summary.guest.toolsRunningStatus", Val: run},
	}
	if running && vm.Guest != nil && vm.Guest.ToolsVersion == "" {
		changes = append(changes,
			types.PropertyChange{Name: "guest.toolsVersion", Val: "12448"},
			types.PropertyChange{Name: "guest.toolsVersionStatus2", Val: string(types.VirtualMachineToolsVersionStatusGuestToolsCurrent)},
			types.PropertyChange{Name: "summary.guest.toolsVersionStatus2", Val: string(types.VirtualMachineToolsVersionStatusGuestToolsCurrent)})
	}
	simulator.Map.Update(vm, changes)
}

// guestMethods maps each method the lab implements to its manager.
var guestMethods = map[string]string{
	"InitiateFileTransferToGuest":     "file",
	"InitiateFileTransferFromGuest":   "file",
	"DeleteFileInGuest":               "file",
	"DeleteDirectoryInGuest":          "file",
	"MakeDirectoryInGuest":            "file",
	"CreateTemporaryFileInGuest":      "file",
	"CreateTemporaryDirectoryInGuest": "file",
	"StartProgramInGuest":             "process",
	"ListProcessesInGuest":            "process",
	"TerminateProcessInGuest":         "process",
	"ValidateCredentialsInGuest":      "auth",
}

// guestRequest holds the arguments of any guest call. It is decoded with
// encoding/xml by local names, so a missing xsi:type does not matter.
type guestRequest struct {
	Vm struct {
		Type  string `xml:"type,attr"`
		Value string `xml:",chardata"`
	} `xml:"vm"`
	Auth *struct {
		Attrs    []xml.Attr `xml:",any,attr"`
		Username string     `xml:"username"`
		Password string     `xml:"password"`
	} `xml:"auth"`
	GuestFilePath  string `xml:"guestFilePath"`
	FileAttributes struct {
		Permissions *int64 `xml:"permissions"`
	} `xml:"fileAttributes"`
	FileSize  int64 `xml:"fileSize"`
	Overwrite bool  `xml:"overwrite"`
	Spec      struct {
		ProgramPath      string   `xml:"programPath"`
		Arguments        string   `xml:"arguments"`
		WorkingDirectory string   `xml:"workingDirectory"`
		EnvVariables     []string `xml:"envVariables"`
	} `xml:"spec"`
	Pids                    []int64 `xml:"pids"`
	Pid                     int64   `xml:"pid"`
	FilePath                string  `xml:"filePath"`
	DirectoryPath           string  `xml:"directoryPath"`
	Recursive               bool    `xml:"recursive"`
	CreateParentDirectories bool    `xml:"createParentDirectories"`
	Prefix                  string  `xml:"prefix"`
	Suffix                  string  `xml:"suffix"`
}

// decodeGuestRequest decodes the method element of a SOAP request.
func decodeGuestRequest(body []byte, v *guestRequest) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	inBody := false
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !inBody {
			inBody = start.Name.Local == "Body"
			continue
		}
		return d.DecodeElement(v, &start)
	}
}

// guestFault is a fault with vCenter's message.
type guestFault struct {
	msg   string
	fault types.BaseMethodFault
}

func faultName(f types.BaseMethodFault) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", f), "*types.")
}

func fileNotFound(p string) *guestFault {
	return &guestFault{"File " + p + " was not found", &types.FileNotFound{FileFault: types.FileFault{File: p}}}
}

func (g *guestOps) intercept(c *soapCall, w http.ResponseWriter) bool {
	kind, ok := guestMethods[c.Method]
	if !ok {
		return false
	}
	if m := g.managers[kind]; c.This.Type != m.Type || c.This.Value != m.Value || !g.l.sessions.valid(c.Session) {
		return false // the simulator answers: NotAuthenticated, not found, ...
	}
	var req guestRequest
	if err := decodeGuestRequest(c.Body, &req); err != nil {
		writeFault(w, "Unable to parse the request: "+err.Error(), &types.InvalidRequest{})
		return true
	}
	vmRef := types.ManagedObjectReference{Type: "VirtualMachine", Value: strings.TrimSpace(req.Vm.Value)}
	detail := "-"
	result, gf := g.admit(vmRef, &req)
	if gf == nil {
		result, detail, gf = g.perform(c.Method, vmRef, &req)
	}
	if gf != nil {
		g.logCall(c.Method, vmRef.Value, detail, faultName(gf.fault))
		writeFault(w, gf.msg, gf.fault)
		return true
	}
	g.logCall(c.Method, vmRef.Value, detail, "ok")
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, envOpen+`<`+c.Method+`Response xmlns="urn:vim25">`+result+`</`+c.Method+`Response>`+envClose)
	return true
}

// admit makes the checks every guest call makes, in vCenter's order.
func (g *guestOps) admit(ref types.ManagedObjectReference, req *guestRequest) (string, *guestFault) {
	vm, ok := simulator.Map.Get(ref).(*simulator.VirtualMachine)
	if !ok {
		return "", &guestFault{fmt.Sprintf("The object 'vim.VirtualMachine:%s' has already been deleted or has not been completely created", ref.Value),
			&types.ManagedObjectNotFound{Obj: ref}}
	}
	var power types.VirtualMachinePowerState
	var tools string
	var ready bool
	simulator.Map.WithLock(vm, func() {
		power = vm.Runtime.PowerState
		if vm.Guest != nil {
			tools = vm.Guest.ToolsRunningStatus
			ready = vm.Guest.GuestOperationsReady != nil && *vm.Guest.GuestOperationsReady
		}
	})
	if power != types.VirtualMachinePowerStatePoweredOn {
		state := map[types.VirtualMachinePowerState]string{
			types.VirtualMachinePowerStatePoweredOff: "Powered off",
			types.VirtualMachinePowerStateSuspended:  "Suspended",
		}[power]
		return "", &guestFault{"The attempted operation cannot be performed in the current state (" + state + ").",
			&types.InvalidPowerState{RequestedState: types.VirtualMachinePowerStatePoweredOn, ExistingState: power}}
	}
	if tools != string(types.VirtualMachineToolsRunningStatusGuestToolsRunning) || !ready {
		return "", &guestFault{"The guest operations agent could not be contacted.", &types.GuestOperationsUnavailable{}}
	}
	badLogin := &guestFault{"Failed to authenticate with the guest operating system using the supplied credentials.", &types.InvalidGuestLogin{}}
	if req.Auth == nil {
		return "", badLogin
	}
	for _, a := range req.Auth.Attrs {
		if a.Name.Local == "type" && a.Value != "NamePasswordAuthentication" && !strings.HasSuffix(a.Value, ":NamePasswordAuthentication") {
			return "", badLogin
		}
	}
	if req.Auth.Username != g.user || req.Auth.Password != g.password {
		return "", badLogin
	}
	return "", nil
}

// perform runs an admitted call; it returns the XML inside the response
// element and a detail for the guest log.
func (g *guestOps) perform(method string, vm types.ManagedObjectReference, req *guestRequest) (string, string, *guestFault) {
	root, err := g.root(vm.Value)
	if err != nil {
		return "", "-", &guestFault{err.Error(), &types.SystemError{Reason: err.Error()}}
	}
	switch method {
	case "InitiateFileTransferToGuest":
		res, gf := g.toGuest(vm.Value, root, req)
		return res, "path=" + strconv.Quote(req.GuestFilePath), gf
	case "InitiateFileTransferFromGuest":
		res, gf := g.fromGuest(vm.Value, root, req.GuestFilePath)
		return res, "path=" + strconv.Quote(req.GuestFilePath), gf
	case "DeleteFileInGuest":
		return "", "path=" + strconv.Quote(req.FilePath), deleteFile(root, req.FilePath)
	case "DeleteDirectoryInGuest":
		return "", "path=" + strconv.Quote(req.DirectoryPath), deleteDirectory(root, req.DirectoryPath, req.Recursive)
	case "MakeDirectoryInGuest":
		return "", "path=" + strconv.Quote(req.DirectoryPath), makeDirectory(root, req.DirectoryPath, req.CreateParentDirectories)
	case "CreateTemporaryFileInGuest", "CreateTemporaryDirectoryInGuest":
		p, gf := createTemporary(root, req, method == "CreateTemporaryDirectoryInGuest")
		return "<returnval>" + xmlText(p) + "</returnval>", "path=" + strconv.Quote(p), gf
	case "StartProgramInGuest":
		pid, gf := g.startProgram(vm, root, req)
		return fmt.Sprintf("<returnval>%d</returnval>", pid), fmt.Sprintf("pid=%d", pid), gf
	case "ListProcessesInGuest":
		detail := "pids=*"
		if len(req.Pids) > 0 {
			s := make([]string, len(req.Pids))
			for i, p := range req.Pids {
				s[i] = strconv.FormatInt(p, 10)
			}
			detail = "pids=" + strings.Join(s, ",")
		}
		return g.listProcesses(vm.Value, req.Pids), detail, nil
	case "TerminateProcessInGuest":
		return "", fmt.Sprintf("pid=%d", req.Pid), g.terminate(vm.Value, req.Pid)
	case "ValidateCredentialsInGuest":
		return "", "-", nil
	}
	return "", "-", &guestFault{"not implemented", &types.NotImplemented{}}
}

// root returns the VM's guest root, creating it on first use.
func (g *guestOps) root(vm string) (string, error) {
	dir := filepath.Join(g.l.dir, "guests", vm)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.roots[vm] {
		for _, d := range guestDirs {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				return "", err
			}
		}
		_ = os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
		_ = os.Chmod(filepath.Join(dir, "var/tmp"), 0o1777)
		g.roots[vm] = true
	}
	return dir, nil
}

// guestPath maps guest path p into root. ".." cannot leave root.
func guestPath(root, p string) string {
	return filepath.Join(root, filepath.FromSlash(path.Clean("/"+p)))
}

// ---- file transfers ----

func randomToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// newTransfer registers t and returns its URL: on the VM's ESXi host, or
// with host "*" (see hostendpoint.go).
func (g *guestOps) newTransfer(t *guestTransfer) string {
	t.token = randomToken()
	t.expires = time.Now().Add(transferLife)
	g.mu.Lock()
	now := time.Now()
	for id, old := range g.transfers {
		if now.After(old.expires) {
			delete(g.transfers, id)
		}
	}
	g.serial++
	id := strconv.FormatInt(g.serial, 10)
	g.transfers[id] = t
	g.mu.Unlock()
	vm := types.ManagedObjectReference{Type: "VirtualMachine", Value: t.vm}
	return g.hosts.transferURL(vm, "/guestFile?id="+id+"&token="+t.token)
}

func (g *guestOps) toGuest(vm, root string, req *guestRequest) (string, *guestFault) {
	p := req.GuestFilePath
	if !path.IsAbs(p) {
		return "", &guestFault{"A specified parameter was not correct: guestFilePath", &types.InvalidArgument{InvalidProperty: "guestFilePath"}}
	}
	if req.FileSize < 0 {
		return "", &guestFault{"A specified parameter was not correct: fileSize", &types.InvalidArgument{InvalidProperty: "fileSize"}}
	}
	local := guestPath(root, p)
	if fi, err := os.Stat(local); err == nil {
		if fi.IsDir() {
			return "", &guestFault{"File " + p + " is not a file", &types.NotAFile{FileFault: types.FileFault{File: p}}}
		}
		if !req.Overwrite {
			return "", &guestFault{"The file " + p + " already exists", &types.FileAlreadyExists{FileFault: types.FileFault{File: p}}}
		}
	}
	perm := os.FileMode(0o644)
	if a := req.FileAttributes.Permissions; a != nil && *a > 0 {
		perm = os.FileMode(*a) & os.ModePerm
	}
	url := g.newTransfer(&guestTransfer{put: true, vm: vm, guest: p, local: local, root: root, size: req.FileSize, perm: perm})
	return "<returnval>" + xmlText(url) + "</returnval>", nil
}

func (g *guestOps) fromGuest(vm, root, p string) (string, *guestFault) {
	if !path.IsAbs(p) {
		return "", &guestFault{"A specified parameter was not correct: guestFilePath", &types.InvalidArgument{InvalidProperty: "guestFilePath"}}
	}
	local := guestPath(root, p)
	fi, err := os.Stat(local)
	if err != nil {
		return "", fileNotFound(p)
	}
	if fi.IsDir() {
		return "", &guestFault{"File " + p + " is not a file", &types.NotAFile{FileFault: types.FileFault{File: p}}}
	}
	url := g.newTransfer(&guestTransfer{vm: vm, guest: p, local: local, root: root})
	var b strings.Builder
	b.WriteString(`<returnval><attributes xsi:type="GuestPosixFileAttributes">`)
	b.WriteString("<modificationTime>" + xmlTime(fi.ModTime()) + "</modificationTime>")
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		b.WriteString("<accessTime>" + xmlTime(time.Unix(st.Atim.Sec, st.Atim.Nsec)) + "</accessTime>")
		fmt.Fprintf(&b, "<ownerId>%d</ownerId><groupId>%d</groupId>", st.Uid, st.Gid)
	}
	fmt.Fprintf(&b, "<permissions>%d</permissions></attributes>", fi.Mode().Perm())
	fmt.Fprintf(&b, "<size>%d</size><url>%s</url></returnval>", fi.Size(), xmlText(url))
	return b.String(), nil
}

// serveTransfer serves PUT and GET /guestFile?id=..&token=..: one
// successful transfer per URL, then 404.
func (g *guestOps) serveTransfer(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("id")
	g.mu.Lock()
	t := g.transfers[id]
	if t != nil && (q.Get("token") != t.token || time.Now().After(t.expires)) {
		t = nil
	}
	g.mu.Unlock()
	if t == nil {
		http.Error(w, "404 Not Found", http.StatusNotFound)
		return
	}
	status := g.transfer(w, r, id, t)
	method := "GET"
	if t.put {
		method = "PUT"
	}
	g.logCall(method, t.vm, "path="+strconv.Quote(t.guest), strconv.Itoa(status))
}

// claim removes the transfer id if it is still t; false if someone else
// took it first (one transfer per URL).
func (g *guestOps) claim(id string, t *guestTransfer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.transfers[id] != t {
		return false
	}
	delete(g.transfers, id)
	return true
}

func (g *guestOps) transfer(w http.ResponseWriter, r *http.Request, id string, t *guestTransfer) int {
	fail := func(status int, msg string) int {
		http.Error(w, msg, status)
		return status
	}
	if t.put {
		if r.Method != http.MethodPut {
			return fail(http.StatusMethodNotAllowed, "405 Method Not Allowed: PUT the file")
		}
		if r.ContentLength != t.size {
			return fail(http.StatusBadRequest, fmt.Sprintf("400 Bad Request: Content-Length must be the fileSize %d", t.size))
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, t.size+1))
		if err != nil || int64(len(data)) != t.size {
			return fail(http.StatusBadRequest, "400 Bad Request: body is not fileSize bytes")
		}
		if !g.claim(id, t) {
			return fail(http.StatusNotFound, "404 Not Found")
		}
		if strings.HasSuffix(strings.ToLower(t.guest), ".fio") {
			data = rewriteFioJob(t.root, data)
		}
		if err := os.MkdirAll(filepath.Dir(t.local), 0o755); err != nil {
			return fail(http.StatusInternalServerError, err.Error())
		}
		if err := os.WriteFile(t.local, data, t.perm); err != nil {
			return fail(http.StatusInternalServerError, err.Error())
		}
		_ = os.Chmod(t.local, t.perm)
		w.WriteHeader(http.StatusOK)
		return http.StatusOK
	}
	if r.Method != http.MethodGet {
		return fail(http.StatusMethodNotAllowed, "405 Method Not Allowed: GET the file")
	}
	if !g.claim(id, t) {
		return fail(http.StatusNotFound, "404 Not Found")
	}
	f, err := os.Open(t.local)
	if err != nil {
		return fail(http.StatusNotFound, "404 Not Found")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		return fail(http.StatusNotFound, "404 Not Found")
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, io.LimitReader(f, fi.Size()))
	return http.StatusOK
}

// ---- file and directory calls ----

func deleteFile(root, p string) *guestFault {
	local := guestPath(root, p)
	fi, err := os.Lstat(local)
	if err != nil {
		return fileNotFound(p)
	}
	if fi.IsDir() {
		return &guestFault{"File " + p + " is not a file", &types.NotAFile{FileFault: types.FileFault{File: p}}}
	}
	if err := os.Remove(local); err != nil {
		return &guestFault{err.Error(), &types.CannotDeleteFile{FileFault: types.FileFault{File: p}}}
	}
	return nil
}

func deleteDirectory(root, p string, recursive bool) *guestFault {
	local := guestPath(root, p)
	if local == filepath.Clean(root) {
		return &guestFault{"Operation not permitted on /", &types.GuestPermissionDenied{}}
	}
	fi, err := os.Lstat(local)
	if err != nil {
		return fileNotFound(p)
	}
	if !fi.IsDir() {
		return &guestFault{"File " + p + " is not a directory", &types.NotADirectory{FileFault: types.FileFault{File: p}}}
	}
	if recursive {
		err = os.RemoveAll(local)
	} else {
		err = os.Remove(local)
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return &guestFault{"Directory " + p + " is not empty", &types.DirectoryNotEmpty{FileFault: types.FileFault{File: p}}}
		}
	}
	if err != nil {
		return &guestFault{err.Error(), &types.CannotDeleteFile{FileFault: types.FileFault{File: p}}}
	}
	return nil
}

func makeDirectory(root, p string, parents bool) *guestFault {
	local := guestPath(root, p)
	if _, err := os.Lstat(local); err == nil {
		return &guestFault{"The file " + p + " already exists", &types.FileAlreadyExists{FileFault: types.FileFault{File: p}}}
	}
	var err error
	if parents {
		err = os.MkdirAll(local, 0o755)
	} else {
		err = os.Mkdir(local, 0o755)
		if errors.Is(err, fs.ErrNotExist) {
			return fileNotFound(path.Dir(path.Clean("/" + p)))
		}
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return &guestFault{"A parent of " + p + " is not a directory", &types.NotADirectory{FileFault: types.FileFault{File: p}}}
	}
	if err != nil {
		return &guestFault{err.Error(), &types.GuestPermissionDenied{}}
	}
	return nil
}

func createTemporary(root string, req *guestRequest, dir bool) (string, *guestFault) {
	gdir := req.DirectoryPath
	if gdir == "" {
		gdir = "/tmp"
	}
	local := guestPath(root, gdir)
	if fi, err := os.Stat(local); err != nil || !fi.IsDir() {
		return "", fileNotFound(gdir)
	}
	if strings.Contains(req.Prefix+req.Suffix, "/") {
		return "", &guestFault{"A specified parameter was not correct: prefix", &types.InvalidArgument{InvalidProperty: "prefix"}}
	}
	var name string
	if dir {
		d, err := os.MkdirTemp(local, req.Prefix+"*"+req.Suffix)
		if err != nil {
			return "", &guestFault{err.Error(), &types.GuestPermissionDenied{}}
		}
		name = d
	} else {
		f, err := os.CreateTemp(local, req.Prefix+"*"+req.Suffix)
		if err != nil {
			return "", &guestFault{err.Error(), &types.GuestPermissionDenied{}}
		}
		name = f.Name()
		_ = f.Close()
	}
	return path.Join(path.Clean("/"+gdir), filepath.Base(name)), nil
}

// ---- processes ----

// guestPathPrefixes are the guest directories whose paths are rewritten in
// a command line when they start a word; each is followed by "/" or the
// end of the word.
var guestPathPrefixes = []string{"/var/tmp", "/tmp", "/root", "/home", "/mnt", "/data"}

// guestDevicePrefixes are disk device stems, rewritten whatever follows.
var guestDevicePrefixes = []string{"/dev/sd", "/dev/vd", "/dev/xvd", "/dev/hd", "/dev/nvme", "/dev/dm-", "/dev/disk/", "/dev/mapper/"}

// wordStart: characters after which a path starts a word in a shell
// command line or an option value (--output=/tmp/x, PATH=/a:/tmp/b, >/tmp/x).
func wordStart(c byte) bool {
	return strings.IndexByte(" \t\n'\"`=:,;|&<>(", c) >= 0
}

// wordChar: characters that continue a path component.
func wordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// guestPrefixAt reports whether s starts with a guest path to rewrite.
func guestPrefixAt(s string) bool {
	for _, p := range guestDevicePrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range guestPathPrefixes {
		if strings.HasPrefix(s, p) && (len(s) == len(p) || !wordChar(s[len(p)])) {
			return true
		}
	}
	return false
}

// rewriteArgs puts root in front of every guest path in s that starts a
// word: /tmp, /var/tmp, /root, /home, /mnt, /data (alone or followed by /
// or a non-name character) and the disk device stems /dev/sd, /dev/vd,
// /dev/xvd, /dev/hd, /dev/nvme, /dev/dm-, /dev/disk/, /dev/mapper/.
// A word starts at the beginning of s or after a blank, a quote, a
// backquote or one of = : , ; | & < > (.
func rewriteArgs(root, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && (i == 0 || wordStart(s[i-1])) && guestPrefixAt(s[i:]) {
			b.WriteString(root)
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fioPathKeys are the fio job options whose absolute paths are mapped into
// the guest root when a *.fio file is uploaded.
var fioPathKeys = map[string]bool{
	"directory": true, "filename": true, "opendir": true, "filename_format": true,
	"write_bw_log": true, "write_iops_log": true, "write_lat_log": true, "write_hist_log": true,
	"write_iolog": true, "read_iolog": true,
}

// rewriteFioJob maps the absolute paths of the fio job's path options into
// root: every ':'-separated element that starts with '/' gets root in
// front (fio separates several files or directories with ':', "\:" is a
// literal colon). Other lines are kept byte for byte.
func rewriteFioJob(root string, data []byte) []byte {
	escRoot := strings.ReplaceAll(root, ":", `\:`)
	lines := strings.SplitAfter(string(data), "\n")
	for i, line := range lines {
		eq := strings.IndexByte(line, '=')
		if eq < 0 {
			continue
		}
		key := strings.TrimSpace(line[:eq])
		if !fioPathKeys[key] {
			continue
		}
		val := line[eq+1:]
		var b strings.Builder
		b.WriteString(line[:eq+1])
		elementStart := true
		for j := 0; j < len(val); j++ {
			c := val[j]
			if elementStart && (c == ' ' || c == '\t') {
				b.WriteByte(c)
				continue
			}
			if elementStart && c == '/' {
				b.WriteString(escRoot)
			}
			elementStart = c == ':' && (j == 0 || val[j-1] != '\\')
			b.WriteByte(c)
		}
		lines[i] = b.String()
	}
	return []byte(strings.Join(lines, ""))
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (g *guestOps) startProgram(vm types.ManagedObjectReference, root string, req *guestRequest) (int64, *guestFault) {
	spec := req.Spec
	if !path.IsAbs(spec.ProgramPath) {
		return 0, &guestFault{"A specified parameter was not correct: programPath", &types.InvalidArgument{InvalidProperty: "programPath"}}
	}
	prog := rewriteArgs(root, spec.ProgramPath)
	if fi, err := os.Stat(prog); err != nil || fi.IsDir() {
		return 0, fileNotFound(spec.ProgramPath)
	}
	home := "/root"
	if g.user != "root" {
		home = "/home/" + g.user
	}
	wd := spec.WorkingDirectory
	if wd == "" {
		wd = home // Linux Tools: the user's home directory
	}
	wdLocal := guestPath(root, wd)
	if wd == home {
		_ = os.MkdirAll(wdLocal, 0o755)
	}
	if fi, err := os.Stat(wdLocal); err != nil {
		return 0, fileNotFound(wd)
	} else if !fi.IsDir() {
		return 0, &guestFault{"File " + wd + " is not a directory", &types.NotADirectory{FileFault: types.FileFault{File: wd}}}
	}
	env := spec.EnvVariables
	if len(env) == 0 {
		env = []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=" + home, "USER=" + g.user, "LOGNAME=" + g.user, "SHELL=/bin/sh",
			"TMPDIR=/tmp", "LANG=C.UTF-8",
		}
	}
	for i, e := range env {
		env[i] = rewriteArgs(root, e)
	}
	env = append(g.fio.path(env), guestEnvKey+"="+g.guestToken(vm.Value))
	if g.fioFail != "" && g.vmName(vm) == g.fioFail {
		env = append(env, fioFailEnv+"=1")
	}
	if g.fioLate != "" && g.vmName(vm) == g.fioLate {
		env = append(env, fioLateEnv+"=1")
	}
	for _, spoilt := range strings.Split(g.fioLogs, ",") {
		if name, mode, ok := strings.Cut(spoilt, "="); ok && g.vmName(vm) == name {
			env = append(env, fioLogsEnv+"="+mode)
		}
	}
	cmdLine := shellQuote(prog)
	if spec.Arguments != "" {
		cmdLine += " " + rewriteArgs(root, spec.Arguments)
	}
	cmd := exec.Command("/bin/sh", "-c", cmdLine)
	cmd.Dir = wdLocal
	cmd.Env = env
	// Own process group, so that shutdown reaches the program's children;
	// killed if the lab dies.  (fio's job processes make a session of their
	// own: killGuests finds them by guestEnvKey.)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	var host types.ManagedObjectReference
	var dss []types.ManagedObjectReference
	if obj, ok := simulator.Map.Get(vm).(*simulator.VirtualMachine); ok {
		simulator.Map.WithLock(obj, func() {
			if obj.Runtime.Host != nil {
				host = *obj.Runtime.Host
			}
			dss = append(dss, obj.Datastore...)
		})
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	// The NAS's counters take fio's last report before the process shows as
	// ended: a client that reads them after the end sees the whole run. The
	// feed forgets an earlier run's reports before this one can write any.
	done := make(chan struct{})
	flush := g.nas.watch(cmdLine, dss, done)
	if err := cmd.Start(); err != nil {
		close(done)
		return 0, &guestFault{err.Error(), &types.GuestPermissionDenied{}}
	}
	guestCmd := `"` + spec.ProgramPath + `"`
	if spec.Arguments != "" {
		guestCmd += " " + spec.Arguments
	}
	p := &guestProc{
		pid:        int64(cmd.Process.Pid),
		name:       spec.ProgramPath,
		cmdLine:    guestCmd,
		owner:      g.user,
		host:       host,
		datastores: dss,
		start:      time.Now(),
		done:       done,
	}
	g.pruneLocked()
	if g.procs[vm.Value] == nil {
		g.procs[vm.Value] = make(map[int64]*guestProc)
	}
	g.procs[vm.Value][p.pid] = p
	go func() {
		err := cmd.Wait()
		if flush != nil {
			flush()
		}
		code := int32(0)
		if cmd.ProcessState != nil {
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int32(ws.Signal()) // as a shell reports it
			} else {
				code = int32(cmd.ProcessState.ExitCode())
			}
		} else if err != nil {
			code = -1
		}
		g.mu.Lock()
		p.end = time.Now()
		p.exitCode = code
		g.mu.Unlock()
		close(p.done)
	}()
	return p.pid, nil
}

// pruneLocked forgets processes that ended more than procHistory ago.
func (g *guestOps) pruneLocked() {
	now := time.Now()
	for vm, m := range g.procs {
		for pid, p := range m {
			if !p.end.IsZero() && now.Sub(p.end) > procHistory {
				delete(m, pid)
			}
		}
		if len(m) == 0 {
			delete(g.procs, vm)
		}
	}
}

// listedLocked returns the VM's process pid if ListProcessesInGuest shows it.
func (g *guestOps) listedLocked(vm string, pid int64) *guestProc {
	p := g.procs[vm][pid]
	if p == nil || (!p.end.IsZero() && time.Since(p.end) > procListKeep) {
		return nil
	}
	return p
}

// listProcesses shows the VM's processes as Tools does: those it started
// (ended ones for a while, with their exit code) and every other running
// one of the guest (their children, and children that outlived them).
func (g *guestOps) listProcesses(vm string, pids []int64) string {
	g.mu.Lock()
	g.pruneLocked()
	var list []*guestProc
	if len(pids) == 0 {
		for pid := range g.procs[vm] {
			if p := g.listedLocked(vm, pid); p != nil {
				list = append(list, p)
			}
		}
		list = append(list, g.children(vm, g.procs[vm])...)
		sort.Slice(list, func(i, j int) bool { return list[i].pid < list[j].pid })
	} else {
		// A wait asks for its pids only: each is looked up, /proc is not
		// walked.
		seen := make(map[int64]bool)
		for _, pid := range pids {
			p := g.listedLocked(vm, pid)
			if p == nil {
				if hp, ok := g.guestOf(pid, ""); ok && hp.vm == vm {
					p = g.guestView(hp)
				}
			}
			if p != nil && !seen[pid] {
				seen[pid] = true
				list = append(list, p)
			}
		}
	}
	g.mu.Unlock()
	var b strings.Builder
	for _, p := range list {
		fmt.Fprintf(&b, "<returnval><name>%s</name><pid>%d</pid><owner>%s</owner><cmdLine>%s</cmdLine><startTime>%s</startTime>",
			xmlText(p.name), p.pid, xmlText(p.owner), xmlText(p.cmdLine), xmlTime(p.start))
		if !p.end.IsZero() {
			// exitCode 0 is written too: the encoder of 0.24.2 would drop it.
			fmt.Fprintf(&b, "<endTime>%s</endTime><exitCode>%d</exitCode>", xmlTime(p.end), p.exitCode)
		}
		b.WriteString("</returnval>")
	}
	return b.String()
}

// busy counts the guest processes of VMs on host with files on ds that ran
// at some time in (from, to]: the load behind the performance samples.
func (g *guestOps) busy(host, ds types.ManagedObjectReference, from, to time.Time) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var n int64
	for _, m := range g.procs {
		for _, p := range m {
			if p.host != host || !p.start.Before(to) || (!p.end.IsZero() && !p.end.After(from)) {
				continue
			}
			for _, d := range p.datastores {
				if d == ds {
					n++
					break
				}
			}
		}
	}
	return n
}

// close kills every guest process at shutdown: the VMs end with the lab.
func (g *guestOps) close() {
	if g.stopWatch != nil {
		close(g.stopWatch)
	}
	g.mu.Lock()
	var groups []int
	for _, m := range g.procs {
		for pid, p := range m {
			if p.end.IsZero() {
				groups = append(groups, int(pid))
			}
		}
	}
	g.mu.Unlock()
	for _, pid := range groups {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	g.killGuests()
	g.logMu.Lock()
	if g.logFile != nil {
		_ = g.logFile.Close()
		g.logFile = nil
	}
	g.logMu.Unlock()
}

// logCall writes "<unix-ms> <Method> <vm> <detail> <outcome>" to -guest-log.
func (g *guestOps) logCall(method, vm, detail, outcome string) {
	g.logMu.Lock()
	defer g.logMu.Unlock()
	if g.logFile == nil {
		return
	}
	if vm == "" {
		vm = "-"
	}
	_, _ = fmt.Fprintf(g.logFile, "%d %s %s %s %s\n", time.Now().UnixMilli(), method, vm, detail, outcome)
}

// xmlTime formats t as xsd:dateTime in UTC, as the simulator does.
func xmlTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// vmName is vm's name in the inventory, "" when it is gone.
func (g *guestOps) vmName(vm types.ManagedObjectReference) string {
	name := ""
	if obj, ok := simulator.Map.Get(vm).(*simulator.VirtualMachine); ok {
		simulator.Map.WithLock(obj, func() { name = obj.Name })
	}
	return name
}
