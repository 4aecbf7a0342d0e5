#!/usr/bin/env bash
# Installs the peer brokers that `felix bench compare` runs beside Felix, from Debian's packages:
# nats-server (NATS core + JetStream), redis-server (pub/sub), etcd-server (for the later watch
# workload). Idempotent and non-interactive. The packages' own services are neither needed nor wanted:
# the harness starts every peer itself on loopback ports in a temp dir, so any service the package
# started is stopped and disabled again (a running system redis on 6379 would only get in the way).
set -euo pipefail

packages=(nats-server redis-server etcd-server)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  # policy-rc.d exit 101 tells invoke-rc.d not to start services during the install.
  policy=/usr/sbin/policy-rc.d
  created_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    created_policy=1
  fi
  trap '[ "$created_policy" = 1 ] && $sudo rm -f "$policy"' EXIT
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Leave no package service running: the harness owns every peer process it measures.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  for s in redis-server etcd nats-server; do
    systemctl disable --now "$s" >/dev/null 2>&1 || true
  done
fi

for b in nats-server redis-server etcd; do
  if command -v "$b" >/dev/null 2>&1; then
    printf '%-14s %s\n' "$b" "$("$b" --version 2>&1 | head -n 1)"
  else
    printf '%-14s MISSING\n' "$b"
  fi
done
