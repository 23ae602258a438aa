package main

// The ESXi hosts' HTTPS endpoints. A real vCenter does not serve guest file
// transfers itself: InitiateFileTransferToGuest/FromGuest return a URL that
// names the VM's ESXi host by its inventory name
// (https://esx01.lab:443/guestFile?id=..&token=..), and the client goes to
// that host directly. The name need not resolve, so a client (govmomi's
// guest.FileManager.TransferURL) maps it to the host's single management IP
// from config.virtualNicManagerInfo.netConfig and pins the host's
// certificate by summary.config.sslThumbprint (SHA-1), not by vCenter's.
// Likewise, to read a datastore file as one host sees it, a client gets a
// generic service ticket from vCenter (tickets.go) and sends it with a
// /folder request to that host.
//
// The lab gives every host a management IP of its own on loopback,
// 127.A.B.(i+1) (A.B from the lab's pid, so that labs running side by side
// differ; i = the host's index by name), and listens on each, port 443 as
// ESXi does, with one certificate of its own (not vCenter's); each host
// advertises its IP and that certificate's SHA-1 thumbprint. Served there:
// /guestFile and /folder (with a ticket, as the ticket's host); vCenter's
// listener no longer serves /guestFile. -guest-transfer-star brings back
// the form ESXi uses when called directly (https://*/guestFile on the
// vCenter listener); -host-thumbprint wrong advertises a wrong thumbprint,
// so that a client that pins must refuse the transfer.

import (
	"crypto/sha1"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// endpointPort is ESXi's HTTPS port, on every host's management IP.
const endpointPort = 443

type hostEndpoint struct {
	star      bool   // -guest-transfer-star
	advertise string // -host-thumbprint: right, wrong or none
	files     *folderServer

	thumbprint string // the certificate's true SHA-1, "AB:CD:..."
	advertised string // what hosts advertise as summary.config.sslThumbprint
	mux        *http.ServeMux
	ips        map[types.ManagedObjectReference]string // management IP per host
	byIP       map[string]*simulator.HostSystem
	tickets    *ticketTable
}

func (e *hostEndpoint) flags(fs *flag.FlagSet) {
	fs.BoolVar(&e.star, "guest-transfer-star", false,
		"serve guest file transfers on the vCenter listener with URLs https://*/guestFile?... instead of on the ESXi hosts' endpoint")
	fs.StringVar(&e.advertise, "host-thumbprint", "right",
		"what hosts advertise as summary.config.sslThumbprint: right, wrong (a client that pins must refuse transfers) or none (empty: the client's CA policy applies)")
}

func (e *hostEndpoint) setup(l *lab) error {
	hosts := sortedHosts()
	ips, err := managementIPs(hosts, os.Getpid())
	if err != nil {
		return err
	}
	e.ips = ips
	// One certificate for every host, naming each one's management IP.
	var names []string
	for _, h := range hosts {
		names = append(names, ips[h.Self])
	}
	cert, der, err := selfSigned("nfsagent simulated lab, ESXi hosts", names...)
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

	e.advertised = advertised
	e.byIP = make(map[string]*simulator.HostSystem)
	e.mux = http.NewServeMux()
	e.mux.HandleFunc("/folder/", e.folder)
	srv := &http.Server{Handler: e.mux}
	l.onClose(func() { _ = srv.Close() })
	// HTTP/1.1 only, like vCenter's listener (no "h2" offered).
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}}
	for _, h := range hosts {
		ip := e.ips[h.Self]
		e.byIP[ip] = h
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(endpointPort)))
		if err != nil {
			_ = srv.Close()
			return fmt.Errorf("ESXi host %s's endpoint on its management IP: %w", h.Name, err)
		}
		go func() {
			if err := srv.Serve(tls.NewListener(ln, tlsConf)); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Printf("ESXi hosts' endpoint: %v", err)
			}
		}()
		if h.Config != nil {
			h.Summary.Config.SslThumbprint = advertised
			h.Config.VirtualNicManagerInfo = withManagementNic(h.Config.VirtualNicManagerInfo, ip)
		}
	}
	e.tickets = newTicketTable(l, e)
	return nil
}

// managementIPs gives host i (by name) 127.A.B.(i+1), A.B = the two low
// bytes of pid (127.255.B if both are 0: 127.0.0.x is everyone's).
func managementIPs(hosts []*simulator.HostSystem, pid int) (map[types.ManagedObjectReference]string, error) {
	if len(hosts) > 254 {
		return nil, fmt.Errorf("%d hosts: the hosts' management IPs (127.A.B.1-254) allow at most 254", len(hosts))
	}
	a, b := (pid>>8)&255, pid&255
	if a == 0 && b == 0 {
		a = 255
	}
	ips := make(map[types.ManagedObjectReference]string)
	for i, h := range hosts {
		ips[h.Self] = fmt.Sprintf("127.%d.%d.%d", a, b, i+1)
	}
	return ips, nil
}

// withManagementNic returns info (a new copy) whose "management" entry is
// exactly one selected vmk0 at ip. 0.24.2's has two candidates
// (192.168.0.1 too); the other NIC types are kept, as real hosts list them.
func withManagementNic(info *types.HostVirtualNicManagerInfo, ip string) *types.HostVirtualNicManagerInfo {
	const key = "management.key-vim.host.VirtualNic-vmk0"
	mgmt := types.VirtualNicManagerNetConfig{
		NicType:            string(types.HostVirtualNicManagerNicTypeManagement),
		MultiSelectAllowed: true,
		CandidateVnic: []types.HostVirtualNic{{
			Device:    "vmk0",
			Key:       key,
			Portgroup: "Management Network",
			Spec: types.HostVirtualNicSpec{
				Ip: &types.HostIpConfig{Dhcp: false, IpAddress: ip, SubnetMask: "255.0.0.0"},
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
	// none after all, the first host's endpoint serves it just the same.
	name := sortedHosts()[0].Name
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
	return "https://" + net.JoinHostPort(name, strconv.Itoa(endpointPort)) + pathQuery
}

func (e *hostEndpoint) report(r *readyLine) {
	r.HostThumbprint = e.thumbprint
	r.HostTransferPort = endpointPort
}

// hostCalled is the host whose management IP r came in on.
func (e *hostEndpoint) hostCalled(r *http.Request) *simulator.HostSystem {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok {
		return nil
	}
	return e.byIP[addr.IP.String()]
}

// folder serves /folder/<path>?dcPath=ha-datacenter&dsName=<ds> GET and
// HEAD as the host called, with a ticket for exactly that request
// (tickets.go): none, unknown, used or expired: 401; another host's, path
// or method: 403. The datastore must be mounted on the host (else 404).
func (e *hostEndpoint) folder(w http.ResponseWriter, r *http.Request) {
	host := e.hostCalled(r)
	ck, err := r.Cookie(ticketCookie)
	if err != nil || host == nil {
		http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
		return
	}
	if status := e.tickets.use(ck.Value, host, r); status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	ds, rel := folderTarget(r)
	mounted := false
	if ds != nil {
		simulator.Map.WithLock(host, func() { mounted = simulator.FindReference(host.Datastore, ds.Self) != nil })
	}
	if r.URL.Query().Get("dcPath") != "ha-datacenter" || !mounted || !e.files.serve(w, r, ds, rel, host) {
		http.NotFound(w, r)
	}
}
