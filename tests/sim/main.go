// Command labsim is nfsagent's simulated vSphere lab: govmomi's vCenter
// simulator (simulator.VPX(), govmomi 0.24.2 as packaged by Debian) plus the
// behaviour of a real vCenter that the simulator lacks and that nfsagent's
// integration tests need (paging, expiring sessions, 503s, slow tasks, ...).
//
// Every behaviour lives in its own file as a "feature". A feature registers
// its flags, may shape the inventory before it is created, and then hooks
// into the lab (see lab.go): SOAP calls pass through the hooks in the order
// the features are listed in features() below, before the simulator sees
// them. To extend the lab, add a file with a type implementing feature and
// add one line to features().
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vmware/govmomi/simulator"
)

// The only credentials the lab accepts (see sessions.go).
const (
	labUser     = "user"
	labPassword = "pass"
)

// feature is one piece of lab behaviour.
type feature interface {
	// flags registers the feature's command-line flags.
	flags(fs *flag.FlagSet)
	// setup runs after the inventory exists and before the server accepts
	// connections; it installs the feature's hooks on the lab.
	setup(l *lab) error
}

// readyReporter is implemented by features that fill in ready-line fields.
type readyReporter interface {
	report(r *readyLine)
}

// modelShaper is implemented by features that configure the simulator model
// before its inventory is created.
type modelShaper interface {
	shape(m *simulator.Model) error
}

// features lists every lab feature, in hook order. This is the one place
// where features are registered.
func features() []feature {
	bug := &nfs41Bug{}
	files := &folderServer{}
	esx := &hostEndpoint{files: files}
	strict := &strictSessions{files: files}
	nfs := &nfsServer{}
	nas := &nasModel{nfs: nfs}
	guest := &guestOps{hosts: esx, nas: nas}
	return []feature{
		&labClock{},           // labclock.go: -clock, /lab/clock (first: others read l.clock in setup)
		&inventory{},          // inventory.go: -hosts, -vms
		&methodLog{},          // methodlog.go: -methods-log (sees every call, even 503s)
		&sessionExpiry{},      // expire.go: -expire-after (runs before the 503 decision)
		&unavailable{},        // faults.go: -fail-503, -seed, -fail-503-after, -fail-burst
		views,                 // hostview.go: -nfs41-bug-view, -nfs41-bug-heal, -vc-folder-host, -thin-sizes
		files,                 // folder.go: /folder GET and HEAD, -suffix-ranges, -locked-extents
		strict,                // sessions.go: session needed everywhere, /folder cookie
		&serviceVersions{},    // versions.go: /sdk/vimServiceVersions.xml
		&paging{},             // paging.go: maxObjects, Continue/CancelRetrievePropertiesEx
		&esxiVersion{},        // esxi.go: -esxi
		&hostOptions{},        // hostoptions.go: the NFS client's advanced options, -host-option
		&linkSpeeds{},         // links.go: -link-speed
		nfs,                   // nfs.go, nfsmount.go: -export, CreateNasDatastore, RemoveDatastore
		nas,                   // nas.go, nasshell.go: the ZFS NAS behind the exports, -nas-*
		&mountFailures{},      // mountfail.go: -fail-mount (one host's CreateNasDatastore fails)
		&haHeartbeat{},        // ha.go: -ha-heartbeat, RetrieveDasAdvancedRuntimeInfo
		bug,                   // nfsbug.go: -nfs41-bug
		&browsing{},           // browser.go: SearchDatastore_Task with real sizes, -browser-extents
		&virtualDisks{bug},    // disks.go: CreateVirtualDisk_Task, DeleteVirtualDisk_Task
		&seedVMs{},            // seeds.go: fiotest, db01, Bjørn test
		&vclsAgents{},         // vcls.go: -vcls (vSphere Cluster Services VMs)
		&layoutRefresh{},      // layout.go, vmfiles.go, vmx.go: layoutEx from the files
		&snapshots{},          // snapshots.go: delta disks for snapshots
		&svmotionQueue{},      // svqueue.go: -svmotion-per-host, -svmotion-per-datastore, -relocations-log
		&relocation{bug: bug}, // relocate.go, relocate_files.go: Storage vMotion
		esx,                   // hostendpoint.go, tickets.go: the ESXi hosts' endpoints, AcquireGenericServiceTicket, -guest-transfer-star, -host-thumbprint
		guest,                 // guest.go, perf.go, nasio.go: guest operations over a guest root, datastore QueryPerf, the NAS's counters moved by fio
		&toolsBoot{},          // toolsboot.go: -tools-boot-seconds (before slowTasks, which answers power calls itself)
		&guestTmp{},           // guesttmp.go: -guest-tmp-kept (before slowTasks too)
		&slowTasks{},          // tasks.go: -task-seconds, -task-steps, -slow-tasks
	}
}

// readyLine is printed once on stdout when the lab accepts connections.
// The field order is part of the interface with the C integration tests.
type readyLine struct {
	URL        string `json:"url"`
	Username   string `json:"username"`
	Password   string `json:"password"`
	Thumbprint string `json:"thumbprint"`
	CACert     string `json:"cacert"`
	Dir        string `json:"dir"`
	PID        int    `json:"pid"`
	// The ESXi hosts' endpoint (hostendpoint.go): the true SHA-1 of its
	// certificate ("AB:CD:...", even with -host-thumbprint wrong) and port.
	HostThumbprint   string `json:"host_thumbprint_sha1"`
	HostTransferPort int    `json:"host_transfer_port"`
}

func main() {
	log.SetPrefix("labsim: ")
	log.SetOutput(os.Stderr)
	// sshd's forced command for the lab NAS (nasshell.go): one command, no lab.
	if len(os.Args) == 3 && os.Args[1] == "-nas-shell" {
		os.Exit(nasShell(os.Args[2], os.Getenv("SSH_ORIGINAL_COMMAND"), os.Stdin, os.Stdout, os.Stderr))
	}
	// The guests' fio (guestfio.go): this machine's, its reports kept apart.
	if len(os.Args) >= 3 && os.Args[1] == "-guest-fio-run" {
		os.Exit(guestFioRun(os.Args[2], os.Args[3:]))
	}

	fs := flag.CommandLine
	listen := fs.String("listen", "127.0.0.1:0", "address to serve HTTPS on")
	dirFlag := fs.String("dir", "", "directory for the lab's files (default: a new temporary directory, removed on exit)")
	feats := features()
	for _, f := range feats {
		f.flags(fs)
	}
	flag.Parse()

	if err := run(*listen, *dirFlag, feats); err != nil {
		log.Fatal(err)
	}
}

func run(listen, dir string, feats []feature) error {
	created := false
	if dir == "" {
		d, err := os.MkdirTemp("", "labsim-")
		if err != nil {
			return err
		}
		dir, created = d, true
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if created {
		defer os.RemoveAll(dir)
	}
	// Absolute, because the NFS model (nfs.go) makes DIR the working
	// directory and files are then named relative to it.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	dir = abs
	// The simulator creates each local datastore with ioutil.TempDir("", ...):
	// pointing TMPDIR at the lab directory keeps every lab file under DIR.
	if err := os.Setenv("TMPDIR", dir); err != nil {
		return err
	}

	cert, err := newLabCertificate(dir)
	if err != nil {
		return err
	}

	model := simulator.VPX()
	for _, f := range feats {
		if s, ok := f.(modelShaper); ok {
			if err := s.shape(model); err != nil {
				return err
			}
		}
	}
	start := time.Now()
	if err := model.Create(); err != nil {
		return fmt.Errorf("creating inventory: %w", err)
	}
	log.Printf("inventory created in %v", time.Since(start).Round(time.Millisecond))

	l, err := newLab(model, dir)
	if err != nil {
		return err
	}
	for _, f := range feats {
		if err := f.setup(l); err != nil {
			return err
		}
	}

	// A Listen.User other than simulator.DefaultLogin makes the simulator
	// accept exactly these credentials (SessionManager.validLogin).
	model.Service.Listen = &url.URL{Host: listen, User: url.UserPassword(labUser, labPassword)}
	model.Service.TLS = cert.config()
	srv := model.Service.NewServer()
	// NewServer registers the simulator's routes on Service.ServeMux and
	// starts serving it; nobody knows the port before the ready line, so the
	// front handler (lab.go) can take over here.
	l.sim = model.Service.ServeMux
	srv.Config.Handler = l.front()

	ready := readyLine{
		URL:        "https://" + srv.URL.Host + "/sdk",
		Username:   labUser,
		Password:   labPassword,
		Thumbprint: cert.thumbprint,
		CACert:     cert.file,
		Dir:        dir,
		PID:        os.Getpid(),
	}
	for _, f := range feats {
		if r, ok := f.(readyReporter); ok {
			r.report(&ready)
		}
	}
	line, err := json.Marshal(ready)
	if err != nil {
		return err
	}
	if _, err := os.Stdout.Write(append(line, '\n')); err != nil {
		return err
	}
	_ = os.Stdout.Sync()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	s := <-sig
	log.Printf("%v: shutting down", s)

	// Close waits for outstanding requests (a WaitForUpdatesEx may be
	// parked for minutes): give them a moment, then exit anyway.
	done := make(chan struct{})
	go func() {
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		log.Printf("requests still running after 1s, exiting anyway")
	}
	l.close()
	// With -dir the lab's files (datastores, certificate) stay for
	// inspection; the temporary directory is removed by the deferred call.
	return nil
}
