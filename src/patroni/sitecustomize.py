# Quorum's start-up hook for Patroni on the etcd DCS. The operator puts this
# file into the cluster's ConfigMap, next to patroni.yaml, and points
# PYTHONPATH at that directory, so Python imports it before Patroni starts.
#
# Why: Patroni's etcd module sends every urllib3 connection of the process --
# its calls to etcd and its REST calls to the other members -- through a name
# cache that keeps an answer for ten minutes (DnsCachingResolver). A member
# replaced by a rolling update comes back with a new pod IP under the same
# name, and the leader keeps calling the old address: a switchover then fails
# with "no good candidates" until the entry expires. This hook makes the cache
# keep answers for QUORUM_PATRONI_DNS_CACHE_SECONDS (default 5) instead.
#
# It only changes the defaults of that class's constructor, once the module is
# imported; anything unexpected leaves Patroni as it is.
import importlib.machinery
import os
import sys

_MODULE = "patroni.dcs.etcd"


def _seconds():
    try:
        return max(0.0, float(os.environ.get("QUORUM_PATRONI_DNS_CACHE_SECONDS", "5")))
    except ValueError:
        return 5.0


def _shorten(module):
    init = getattr(getattr(module, "DnsCachingResolver", None), "__init__", None)
    defaults = getattr(init, "__defaults__", None)
    if not defaults or len(defaults) != 2:
        sys.stderr.write("quorum: DnsCachingResolver not found; Patroni's name cache unchanged\n")
        return
    init.__defaults__ = (_seconds(), _seconds())


class _Finder:
    """Finds the etcd module as usual and patches it once it has run."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != _MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            try:
                _shorten(module)
            except Exception as e:  # never keep Patroni from starting
                sys.stderr.write("quorum: Patroni's name cache unchanged: %s\n" % e)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Finder())
