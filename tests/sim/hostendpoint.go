package main

// The ESXi hosts' HTTPS endpoint. A real vCenter does not serve guest file
// transfers itself: InitiateFileTransferToGuest/FromGuest return a URL that
// names the VM's ESXi host by its inventory name
// (https://esx01.lab:443/guestFile?id=..&token=..), and the client goes to
// that host directly. The name need not resolve, so a client (govmomi's
// guest.FileManager.TransferURL) maps it to the host's single management IP
// from config.virtualNicManagerInfo.netConfig and pins the host's
// certificate by summary.config.sslThumbprint (SHA-1), not by vCenter's.
//
// The lab plays every host with one second listener on 127.0.0.1 and a
// certificate of its own: each host advertises management IP 127.0.0.1 and
// that certificate's SHA-1 thumbprint, and transfer URLs name the VM's host
// with the listener's port. Only /guestFile is served there; vCenter's
// listener no longer serves it. -guest-transfer-star brings back the form
// ESXi uses when called directly (https://*/guestFile on the vCenter
// listener); -host-thumbprint wrong advertises a wrong thumbprint, so that
// a client that pins must refuse the transfer.

import (
	"crypto/sha1"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// managementIP is every host's management address: the endpoint listens there.
const managementIP = "127.0.0.1"

type hostEndpoint struct {
	star       bool // -guest-transfer-star
	advertise  string // -host-thumbprint: right, wrong or none

	port       int
	thumbprint string // the certificate's true SHA-1, "AB:CD:..."
	mux        *http.ServeMux
}

func (e *hostEndpoint) flags(fs *flag.FlagSet) {
	fs.BoolVar(&e.star, "guest-transfer-star", false,
		"serve guest file transfers on the vCenter listener with URLs https://*/guestFile?... instead of on the ESXi hosts' endpoint")
	fs.StringVar(&e.advertise, "host-thumbprint", "right",
		"what hosts advertise as summary.config.sslThumbprint: right, wrong (a client that pins must refuse transfers) or none (empty: the client's CA policy applies)")
}

func (e *hostEndpoint) setup(l *lab) error {
	cert, der, err := selfSigned("nfsagent simulated lab, ESXi hosts")
	if err != nil {
		return err
	}
	sum := sha1.Sum(der)
	e.thumbprint = hexPairs(sum[:])
	advertised := e.thumbprint
	switch e.advertise {
	case "right":
	case "wrong": // well-formed, but no certificate's
		wrong := sha1.Sum(append([]byte("wrong:"), der...))
		advertised = hexPairs(wrong[:])
	case "none":
		advertised = ""
	default:
		return fmt.Errorf("-host-thumbprint %q: want right, wrong or none", e.advertise)
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(managementIP, "0"))
	if err != nil {
		return err
	}
	e.port = ln.Addr().(*net.TCPAddr).Port
	e.mux = http.NewServeMux()
	srv := &http.Server{Handler: e.mux}
	// HTTP/1.1 only, like vCenter's listener (no "h2" offered).
	tlsLn := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
	go func() {
		if err := srv.Serve(tlsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Printf("ESXi hosts' endpoint: %v", err)
		}
	}()
	l.onClose(func() { _ = srv.Close() })

	for _, ent := range simulator.Map.All("HostSystem") {
		if h, ok := ent.(*simulator.HostSystem); ok && h.Config != nil {
			h.Summary.Config.SslThumbprint = advertised
			h.Config.VirtualNicManagerInfo = withManagementNic(h.Config.VirtualNicManagerInfo)
		}
	}
	return nil
}

// withManagementNic returns info (a new copy) whose "management" entry is
// exactly one selected vmk0 at managementIP. 0.24.2's has two candidates
// (192.168.0.1 too); the other NIC types are kept, as real hosts list them.
func withManagementNic(info *types.HostVirtualNicManagerInfo) *types.HostVirtualNicManagerInfo {
	const key = "management.key-vim.host.VirtualNic-vmk0"
	mgmt := types.VirtualNicManagerNetConfig{
		NicType:            string(types.HostVirtualNicManagerNicTypeManagement),
		MultiSelectAllowed: true,
		CandidateVnic: []types.HostVirtualNic{{
			Device:    "vmk0",
			Key:       key,
			Portgroup: "Management Network",
			Spec: types.HostVirtualNicSpec{
				Ip: &types.HostIpConfig{Dhcp: false, IpAddress: managementIP, SubnetMask: "255.0.0.0"},
			},
		}},
		SelectedVnic: []string{key},
	}
	out := &types.HostVirtualNicManagerInfo{}
	placed := false
	if info != nil {
		for _, nc := range info.NetConfig {
			if nc.NicType == mgmt.NicType {
				if !placed {
					out.NetConfig = append(out.NetConfig, mgmt)
					placed = true
				}
				continue
			}
			out.NetConfig = append(out.NetConfig, nc)
		}
	}
	if !placed {
		out.NetConfig = append(out.NetConfig, mgmt)
	}
	return out
}

// serveTransfers installs the guest file transfer handler where transfer
// URLs point.
func (e *hostEndpoint) serveTransfers(l *lab, h http.HandlerFunc) {
	if e.star {
		l.route("/guestFile", h)
		return
	}
	e.mux.HandleFunc("/guestFile", h)
	// Not on vCenter's listener: a 404 there, not the simulator's
	// redirect to its own /guestFile/ route.
	l.route("/guestFile", http.NotFound)
}

// transferURL is the URL of a transfer for vm: pathQuery
// ("/guestFile?id=..&token=..") on the VM's host.
func (e *hostEndpoint) transferURL(vm types.ManagedObjectReference, pathQuery string) string {
	if e.star {
		return "https://*" + pathQuery // the client puts in the server it called
	}
	// The guest checks passed, so the VM runs on a host; should it have
	// none after all, the management IP reaches the endpoint just the same.
	name := managementIP
	if obj, ok := simulator.Map.Get(vm).(*simulator.VirtualMachine); ok {
		var ref *types.ManagedObjectReference
		simulator.Map.WithLock(obj, func() {
			if obj.Runtime.Host != nil {
				r := *obj.Runtime.Host
				ref = &r
			}
		})
		if ref != nil {
			if h, ok := simulator.Map.Get(*ref).(*simulator.HostSystem); ok {
				simulator.Map.WithLock(h, func() { name = h.Name })
			}
		}
	}
	return "https://" + net.JoinHostPort(name, strconv.Itoa(e.port)) + pathQuery
}

func (e *hostEndpoint) report(r *readyLine) {
	r.HostThumbprint = e.thumbprint
	r.HostTransferPort = e.port
}
