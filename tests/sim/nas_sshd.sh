# The lab's NAS over a real sshd (Debian's openssh-server) on 127.0.0.1:
# sourced by tests after tests/integration/lib.sh and lab_start.
#
# nas_start: generates a host key, a user key and known_hosts, an
# authorized_keys whose forced command is `labsim -nas-shell DIR/nas.json`
# (the lab's NAS model, tests/sim/nas.go), starts sshd -D on a free port and
# writes an ssh config with these hosts:
#   nas          the NAS, as nfsagent should reach it
#   nas-badkey   a key the NAS does not know (refused)
#   nas-hostkey  a known_hosts that holds another host key (refused)
#   nas-down     a port nothing listens on (unreachable)
# Sets NAS_SSH_CONFIG, NAS_DIR and NAS_STATE; sshd stops with the test.
# nas_model edits the model with jq; nas_command runs a command on the NAS.

nas_start() {
	local sshd=/usr/sbin/sshd
	[ -x "$sshd" ] || fail "sshd missing: apt-get install openssh-server"
	NAS_DIR="$WORK/nas"
	NAS_STATE="$(jq -r .dir <<< "$LAB_READY")/nas.json"
	[ -f "$NAS_STATE" ] || fail "the lab wrote no $NAS_STATE"
	mkdir -p "$NAS_DIR"
	chmod 700 "$NAS_DIR"
	ssh-keygen -q -t ed25519 -N '' -C lab-nas-host -f "$NAS_DIR/host_key"
	ssh-keygen -q -t ed25519 -N '' -C lab-nas-other-host -f "$NAS_DIR/other_host_key"
	ssh-keygen -q -t ed25519 -N '' -C nfsagent-test -f "$NAS_DIR/id_ed25519"
	ssh-keygen -q -t ed25519 -N '' -C stranger -f "$NAS_DIR/id_stranger"
	local port down user
	port=$(nas_free_port)
	down=$(nas_free_port)
	user=$(id -un)
	printf 'command="%s -nas-shell %s",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n' \
		"$(realpath "$LABSIM")" "$NAS_STATE" "$(cat "$NAS_DIR/id_ed25519.pub")" > "$NAS_DIR/authorized_keys"
	printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$NAS_DIR/host_key.pub")" > "$NAS_DIR/known_hosts"
	printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$NAS_DIR/other_host_key.pub")" \
		> "$NAS_DIR/wrong_known_hosts"
	cat > "$NAS_DIR/sshd_config" <<-EOF
		ListenAddress 127.0.0.1
		Port $port
		HostKey $NAS_DIR/host_key
		PidFile none
		AuthorizedKeysFile $NAS_DIR/authorized_keys
		StrictModes no
		UsePAM no
		# Offered, so that a client without BatchMode would ask for one
		# (test_nas.sh checks that nfsagent never does).
		PasswordAuthentication yes
		KbdInteractiveAuthentication no
		PermitRootLogin prohibit-password
		AllowUsers $user
		LogLevel ERROR
		# OpenSSH 9's default key exchange (sntrup761x25519) costs the
		# client about 80 ms of CPU a connection, two thirds of its part:
		# the NAS tests open hundreds, on a machine their fio keeps busy.
		KexAlgorithms curve25519-sha256
		# sshd runs the forced command with the user's shell, and Debian's
		# bash then reads ~/.bashrc (SSH_SOURCE_BASHRC) unless it is nested:
		# a bashrc that runs pyenv init costs each NAS command a second.
		SetEnv SHLVL=1
	EOF
	cat > "$NAS_DIR/ssh_config" <<-EOF
		# ssh takes each option's first value (IdentityFile adds up): the
		# exceptions come first, and nas-badkey has no IdentityFile of the NAS.
		Host nas-badkey
		  IdentityFile $NAS_DIR/id_stranger
		Host nas-hostkey
		  UserKnownHostsFile $NAS_DIR/wrong_known_hosts
		Host nas-down
		  Port $down
		Host nas nas-hostkey nas-down
		  IdentityFile $NAS_DIR/id_ed25519
		Host *
		  HostName 127.0.0.1
		  Port $port
		  User $user
		  IdentitiesOnly yes
		  IdentityAgent none
		  UserKnownHostsFile $NAS_DIR/known_hosts
		  GlobalKnownHostsFile /dev/null
		  StrictHostKeyChecking yes
		  ConnectTimeout 5
		  LogLevel ERROR
	EOF
	# sshd run as root wants its privilege separation directory.
	[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
	"$sshd" -D -e -f "$NAS_DIR/sshd_config" 2> "$NAS_DIR/sshd.log" &
	OTHER_PIDS+=($!)
	NAS_SSH_CONFIG="$NAS_DIR/ssh_config"
	local i
	for i in $(seq 1 50); do
		[ "$(ssh -F "$NAS_SSH_CONFIG" -o BatchMode=yes nas -- uname -s 2> "$NAS_DIR/ssh.err")" = Linux ] && return 0
		sleep 0.1
	done
	fail "the lab NAS's sshd did not answer: $(tail -n 3 "$NAS_DIR/ssh.err") $(tail -n 3 "$NAS_DIR/sshd.log")"
}

# A TCP port of 127.0.0.1 nothing listens on now.
nas_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nas_model JQ-FILTER: changes the NAS model (the shell reads it at each command).
nas_model() {
	jq "$1" "$NAS_STATE" > "$NAS_STATE.new" && mv "$NAS_STATE.new" "$NAS_STATE"
}

# nas_command WORD...: runs a command on the NAS through its sshd, as an
# admin would (`nas_command zfs set recordsize=16K tank/vmware`: the model's
# property and the pool's history change together).
nas_command() {
	ssh -F "$NAS_SSH_CONFIG" -o BatchMode=yes nas -- "$@"
}

# nas_lab LAB-FLAGS...: a lab (lab_start LAB-FLAGS) with its NAS behind
# sshd, $NAS the --nas-command that reaches it, and the guest's account
# for bench in the environment.
nas_lab() {
	lab_start "$@"
	nas_start
	NAS="ssh -F $NAS_SSH_CONFIG nas"
	export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
}
