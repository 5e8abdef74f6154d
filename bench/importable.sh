# Sourced by the GPU scripts: make this checkout importable as `decider` (and `decider_client`)
# without installing it, through a symlink tree on PYTHONPATH (the machine may have no network).
# Wheels in .whl/ (bench/gpu_wheels.sh, carried with the checkout) are installed beside it.
PKG=$(mktemp -d)
if [[ -z ${NO_WHEELS:-} ]] && compgen -G ".whl/*.whl" > /dev/null; then  # NO_WHEELS=1: the environment has them
  ${PY:-python3} -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$PKG" .whl/*.whl
fi
mkdir "$PKG/decider"
cp -r decider/. "$PKG/decider/"
ln -s "$PWD/engine" "$PKG/decider/engine"
ln -s "$PWD/clients/python/decider_client" "$PKG/decider_client"
export PYTHONPATH="$PKG${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export PYTHONSAFEPATH=1  # the checkout's own decider/ (without engine/) must not shadow the tree
