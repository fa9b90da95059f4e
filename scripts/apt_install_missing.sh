# SPDX-License-Identifier: Apache-2.0
# apt_install_missing NAME PACKAGE...: installs the Debian packages of the list that are not installed yet (apt-get
# runs only then, with sudo unless root) and says which; NAME prefixes the messages. Sourced by the install scripts.
apt_install_missing() {
  local name=$1
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "$name: all $# packages present"
    return 0
  fi
  echo "$name: installing ${missing[*]}"
  local sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}
