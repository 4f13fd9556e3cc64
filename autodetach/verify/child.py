"""The instrumentation that runs inside each verification subprocess.

`install(cfg)` patches torch before any user code runs: backward,
`torch.autograd.backward`/`grad` (counted, loss recorded, and in the
reference run `retain_graph=True` forced), a global optimizer step hook
(parameter snapshots, the step budget), a saved-tensors hook (live saved
bytes), a line tracer limited to the rewritten lines, and, without CUDA, a
CPU shim for legacy `.cuda()` code. `run_script(cfg)` runs a script with it
and writes one JSON record; `python -m autodetach.verify.child CFG.json`
does the same in a fresh interpreter, and the sitecustomize written by
sandbox.py installs it for `--run` commands.

This module must import nothing from torch at import time, and nothing
from autodetach outside this package: it is loaded into user processes.
(`write` borrows textio's atomic writer, stdlib only, when the run ends.)"""
from __future__ import annotations

import atexit
import dis
import gc
import json
import os
import random
import sys
import threading
import time
import traceback
import weakref

from .budget import LoopBudget

VALUES_LIMIT = 4096  # parameter values kept per snapshot (a strided sample beyond)
BACKSTOP = 10  # with loops rewritten: the process ends after this many budgets of steps


class StepBudgetReached(SystemExit):
    """The backstop: raised when the step budget did not end the loops (a loop
    the rewrite could not wrap, or no rewrite at all). A SystemExit (code 0),
    so that the user's `except Exception` does not swallow it and an uncaught
    one ends a `--run` command cleanly."""

    def __init__(self) -> None:
        super().__init__(0)


def loop_progress(frame) -> "tuple | None":
    """(optimizer steps done, steps planned) by the library loop the backstop
    ends, where the loop says: a Lightning Trainer (`global_step`,
    `estimated_stepping_batches`, infinite for `max_epochs=-1`), found as
    `self` (or its `trainer`) of a frame on the stack. None elsewhere."""
    while frame is not None:
        obj = frame.f_locals.get("self")
        try:  # a LightningModule's `trainer` raises when it has none
            held = getattr(obj, "trainer", None)
        except Exception:
            held = None
        for cand in (obj, getattr(obj, "_trainer", None), held):
            if cand is not None and hasattr(type(cand), "estimated_stepping_batches") and \
                    hasattr(type(cand), "global_step"):
                planned = cand.estimated_stepping_batches
                return int(cand.global_step), (None if planned == float("inf") else int(planned))
        frame = frame.f_back
    return None


class _Holder:
    """What the saved-tensors pack hook stores instead of the tensor."""

    __slots__ = ("t", "nbytes", "version", "__weakref__")

    def __init__(self, t) -> None:
        # A detached alias (same storage, same version counter): holding the
        # tensor itself would make a cycle with its own grad_fn.
        self.t = t.detach()
        self.nbytes = t.numel() * t.element_size()
        self.version = t._version


class Recorder:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.steps_budget = max(1, int(cfg.get("steps", 5)))
        # Loops rewritten (loops.py): the budget ends them; the SystemExit is
        # only a backstop, much later. Otherwise it ends the run at the budget.
        self.backstop = self.steps_budget * (BACKSTOP if cfg.get("loops") else 1)
        self.stopped_by = None  # "loops" or "backstop"
        self.progress = None  # at the backstop: (steps done, steps planned) by a library's loop, where it says
        self.loops = LoopBudget(self)
        self.retain = bool(cfg.get("retain"))
        self.measure_graph = cfg.get("measure_graph", True)
        self.root = os.path.realpath(cfg.get("root") or os.getcwd())
        self.losses: list = []
        self.events: list = []
        self.backward_calls = 0
        self.opt_steps = 0
        self.exception = None
        self.status = "running"
        self.stopped = False
        self.reached: dict = {}
        self.device = "cpu"
        self.shim = False
        self.t_start = time.perf_counter()
        self.t_last = self.t_start
        self.t_user = None
        self.live = weakref.WeakSet()
        self._opt_index: dict = {}
        self._names: dict = {}
        self._named = False
        self._inside = threading.local()
        self._torch = None
        self.written = False

    # ----- measurements
    def live_bytes(self) -> int:
        return sum(h.nbytes for h in list(self.live))

    def live_nodes(self) -> int:
        """Autograd nodes reachable from live tensors: graphs kept alive."""
        if not self.measure_graph:
            return 0
        torch = self._torch
        tensor_t = torch.Tensor
        is_tensor: dict = {}
        seen: set = set()
        keep = []
        stack = []
        for o in gc.get_objects():
            tp = type(o)
            ok = is_tensor.get(tp)
            if ok is None:
                ok = is_tensor[tp] = issubclass(tp, tensor_t)
            if not ok:
                continue
            try:
                fn = o.grad_fn
            except Exception:
                continue
            if fn is not None and id(fn) not in seen:
                seen.add(id(fn))
                keep.append(fn)
                stack.append(fn)
        while stack:
            fn = stack.pop()
            try:
                nxt = fn.next_functions
            except Exception:
                continue
            for child, _ in nxt:
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    keep.append(child)
                    stack.append(child)
        return len(keep)

    def peak_memory(self) -> dict:
        torch = self._torch
        note = None
        if self.device == "cuda" and torch is not None:
            try:
                used = int(torch.cuda.max_memory_allocated())
            except Exception:
                used = 0
            if used:
                return {"kind": "cuda_max_allocated", "bytes": used}
            # CUDA was there but the program kept its tensors on the CPU: 0 bytes would hide the real peak.
            note = "nothing was allocated on the GPU: the program ran on the CPU"
        peak = self._rss_peak()
        if note:
            peak["note"] = note
        return peak

    @staticmethod
    def _rss_peak() -> dict:
        try:
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return {"kind": "rss_peak", "bytes": int(line.split()[1]) * 1024}
        except OSError:
            pass
        import resource

        return {"kind": "rss_peak", "bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}

    # ----- parameter names
    def _name_params(self) -> None:
        """Name every parameter after the variable or attribute that holds its
        root module (`model1.0.weight`), found once, at the first snapshot."""
        self._named = True
        nn = self._torch.nn
        modules = [o for o in gc.get_objects() if issubclass(type(o), nn.Module)]
        children = set()
        for m in modules:
            for c in m.children():
                children.add(id(c))
        roots = [m for m in modules if id(m) not in children]
        labels = {}
        main = sys.modules.get("__main__")
        for k, v in list(vars(main).items()) if main is not None else []:
            if issubclass(type(v), nn.Module) and id(v) not in labels:
                labels[id(v)] = k
        for o in gc.get_objects():
            if type(o) is dict:
                for k, v in list(o.items()):
                    if isinstance(k, str) and issubclass(type(v), nn.Module) and id(v) not in labels \
                            and not k.startswith("_"):
                        labels[id(v)] = k
        counts: dict = {}
        for m in sorted(roots, key=lambda m: labels.get(id(m), "~" + type(m).__name__)):
            label = labels.get(id(m))
            if label is None:
                base = type(m).__name__
                counts[base] = counts.get(base, 0) + 1
                label = base if counts[base] == 1 else f"{base}#{counts[base]}"
            for pname, p in m.named_parameters():
                self._names.setdefault(id(p), f"{label}.{pname}")

    def _snapshot(self, params, kind: str, opt: int) -> None:
        torch = self._torch
        if not self._named:
            try:
                self._name_params()
            except Exception:
                pass
        now = time.perf_counter()
        out = []
        with torch.no_grad():
            for i, p in enumerate(params):
                d = p.detach()
                flat = d.reshape(-1)
                if flat.is_complex():
                    flat = torch.view_as_real(flat).reshape(-1)
                flat = flat.double().cpu()
                n = flat.numel()
                if n > VALUES_LIMIT:
                    idx = torch.linspace(0, n - 1, VALUES_LIMIT).long()
                    vals = flat[idx]
                else:
                    vals = flat
                name = self._names.get(id(p)) or f"param{i}{list(d.shape)}"
                out.append([f"{opt}.{i}", name, float(flat.sum()), vals.tolist()])
        gc.collect()  # cheap: the heap from before the user code is frozen
        ev = {"kind": kind, "opt": opt, "params": out, "time": now - self.t_last,
              "live_bytes": self.live_bytes(), "live_nodes": self.live_nodes()}
        ev["overhead"] = time.perf_counter() - now
        self.events.append(ev)
        self.t_last = time.perf_counter()

    # ----- hooks
    def on_backward(self, tensor) -> None:
        self.backward_calls += 1
        if tensor is not None:
            try:
                if tensor.numel() == 1:
                    self.losses.append(float(tensor.detach().reshape(-1)[0].cpu()))
                else:
                    self.losses.append(float(tensor.detach().double().sum().cpu()))
            except Exception:
                self.losses.append(None)
        self.loops.event()
        if self.opt_steps == 0 and not self.cfg.get("timing_only"):
            if self.backward_calls > 2 * self.backstop:
                self._backstop()
            # No optimizer yet: snapshot the modules' parameters at each backward.
            try:
                if not self._named:
                    self._name_params()
                params = self._module_params()
                self._snapshot(params, "backward", -1)
            except StepBudgetReached:
                raise
            except Exception:
                pass

    def _module_params(self):
        nn = self._torch.nn
        seen, out = set(), []
        for o in gc.get_objects():
            if issubclass(type(o), nn.Module):
                for p in o.parameters(recurse=False):
                    if id(p) not in seen:
                        seen.add(id(p))
                        out.append(p)
        out.sort(key=lambda p: self._names.get(id(p), "~"))
        return out

    def _backstop(self) -> None:
        self.stopped = True
        self.stopped_by = "backstop"
        try:
            self.progress = loop_progress(sys._getframe(1))
        except Exception:
            self.progress = None
        raise StepBudgetReached()

    def on_step(self, optimizer) -> None:
        if self.stopped:
            raise StepBudgetReached()
        self.loops.event()
        idx = self._opt_index.setdefault(id(optimizer), len(self._opt_index))
        self.opt_steps += 1
        if self.cfg.get("timing_only"):  # the benchmark's baseline: time per step, nothing else
            now = time.perf_counter()
            self.events.append({"kind": "step", "opt": idx, "params": [], "time": now - self.t_last,
                                "live_bytes": 0, "live_nodes": 0, "overhead": 0.0})
            self.t_last = now
        else:
            params = [p for g in optimizer.param_groups for p in g["params"]]
            self._snapshot(params, "step", idx)
        if self.opt_steps >= self.backstop:
            self._backstop()

    # ----- the record
    def exception_info(self, exc: BaseException) -> dict:
        line, where = None, None
        if isinstance(exc, SyntaxError) and exc.filename:
            if self._is_user(exc.filename):
                line, where = exc.lineno, exc.filename
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            fn = frame.f_code.co_filename
            if str(frame.f_globals.get("__name__", "")).startswith("autodetach.verify"):
                continue  # our own wrappers
            if self._is_user(fn):
                line, where = lineno, fn
        msg = str(exc)
        return {"type": type(exc).__name__, "message": msg[:2000], "line": line,
                "file": os.path.relpath(where, self.root) if where else None}

    def _is_user(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        real = os.path.realpath(filename)
        return real.startswith(self.root + os.sep) and "site-packages" not in real

    def record(self) -> dict:
        rec = {
            "mode": self.cfg.get("mode"),
            "status": self.status,
            "exception": self.exception,
            "stopped_by_budget": self.stopped,
            "stopped_by": self.stopped_by,
            "progress": self.progress,
            "loops_cut": self.loops.cut,
            "losses": self.losses,
            "events": self.events,
            "backward_calls": self.backward_calls,
            "opt_steps": self.opt_steps,
            "reached": {os.path.relpath(k, self.root): sorted(v) for k, v in self.reached.items()},
            "device": self.device,
            "cpu_shim": self.shim,
            "duration": time.perf_counter() - (self.t_user or self.t_start),
            "pid": os.getpid(),
        }
        try:
            rec["peak_memory"] = self.peak_memory()
        except Exception:
            rec["peak_memory"] = None
        return rec

    def write(self) -> None:
        if self.written:
            return
        self.written = True
        path = self.cfg.get("record")
        if not path:
            return
        if self.cfg.get("per_pid"):
            path = f"{path}.{os.getpid()}"
        from ..textio import write_atomic

        write_atomic(path, json.dumps(self.record()).encode("utf-8"), sync=False)


# ---------------------------------------------------------------- the patches

def _force_retain(args: tuple, kwargs: dict, position: int):
    # PyTorch 0.3 spelled retain_graph `retain_variables`: the reference
    # retains every graph, so the old keyword means nothing more there (and
    # today's backward refuses it, which left legacy code without a reference).
    kwargs.pop("retain_variables", None)
    if len(args) > position:
        args = args[:position] + (True,) + args[position + 1:]
    else:
        kwargs["retain_graph"] = True
    return args, kwargs


def _patch_autograd(rec: Recorder, torch) -> None:
    orig_tensor_backward = torch.Tensor.backward
    orig_backward = torch.autograd.backward
    orig_grad = torch.autograd.grad
    inside = rec._inside

    def backward(self, *args, **kwargs):
        # Re-entered through __torch_function__ (the CPU shim's mode): pass through.
        if getattr(inside, "active", False):
            return orig_tensor_backward(self, *args, **kwargs)
        if rec.retain:
            args, kwargs = _force_retain(args, kwargs, 1)
        rec.on_backward(self)
        inside.active = True
        try:
            return orig_tensor_backward(self, *args, **kwargs)
        finally:
            inside.active = False

    def autograd_backward(tensors, *args, **kwargs):
        if getattr(inside, "active", False):
            return orig_backward(tensors, *args, **kwargs)
        if rec.retain:
            args, kwargs = _force_retain(args, kwargs, 1)
        first = tensors[0] if isinstance(tensors, (list, tuple)) and tensors else tensors
        rec.on_backward(first if isinstance(first, torch.Tensor) else None)
        inside.active = True
        try:
            return orig_backward(tensors, *args, **kwargs)
        finally:
            inside.active = False

    def grad(outputs, inputs, *args, **kwargs):
        if getattr(inside, "active", False):
            return orig_grad(outputs, inputs, *args, **kwargs)
        if rec.retain:
            args, kwargs = _force_retain(args, kwargs, 1)
        first = outputs[0] if isinstance(outputs, (list, tuple)) and outputs else outputs
        rec.on_backward(first if isinstance(first, torch.Tensor) else None)
        inside.active = True
        try:
            return orig_grad(outputs, inputs, *args, **kwargs)
        finally:
            inside.active = False

    for new, old in ((backward, orig_tensor_backward), (autograd_backward, orig_backward), (grad, orig_grad)):
        new.__doc__ = old.__doc__
        new.__wrapped__ = old
    torch.Tensor.backward = backward
    torch.autograd.backward = autograd_backward
    torch.autograd.grad = grad


def _patch_optimizer(rec: Recorder, torch) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook

    register_optimizer_step_post_hook(lambda opt, args, kwargs: rec.on_step(opt))


def _patch_saved_tensors(rec: Recorder, torch) -> None:
    live = rec.live

    def pack(t):
        h = _Holder(t)
        live.add(h)
        return h

    def unpack(h):
        # Packing the tensor itself turns off autograd's in-place check; do it here.
        if h.t._version != h.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{h.t.type()} {list(h.t.shape)}], is at version {h.t._version}; expected "
                f"version {h.version} instead.")
        return h.t

    ctx = torch.autograd.graph.saved_tensors_hooks(pack, unpack)
    ctx.__enter__()
    rec._saved_ctx = ctx


def _is_cuda_device(d) -> bool:
    if isinstance(d, str):
        return d == "cuda" or d.startswith("cuda:")
    t = getattr(d, "type", None)
    return t == "cuda" and type(d).__name__ == "device"


def _install_cpu_shim(rec: Recorder, torch) -> None:
    """Legacy code that calls .cuda() unconditionally runs on the CPU:
    `.cuda()` is the identity, and 'cuda' devices in tensor calls become 'cpu'.
    torch.cuda.is_available() stays False."""
    from torch.overrides import TorchFunctionMode

    cuda_method = torch.Tensor.cuda
    cpu = torch.device("cpu")
    type_names = {f"torch.cuda.{n}": f"torch.{n}" for n in (
        "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
        "CharTensor", "ByteTensor", "BoolTensor", "BFloat16Tensor")}

    def fix(v):
        if _is_cuda_device(v):
            return cpu
        return v

    class CpuShim(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is cuda_method:
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = fix(kwargs["device"])
            if args and any(isinstance(a, (str, torch.device)) for a in args):
                args = tuple(type_names.get(a, a) if isinstance(a, str) else a for a in args)
                args = tuple(fix(a) for a in args)
            return func(*args, **kwargs)

    for name, target in type_names.items():
        short = name.rsplit(".", 1)[1]
        if hasattr(torch, short.replace("Tensor", "Tensor")):
            try:
                setattr(torch.cuda, short, getattr(torch, short))
            except Exception:
                pass
    torch.cuda.synchronize = lambda *a, **k: None
    mode = CpuShim()
    mode.__enter__()
    rec._shim_mode = mode
    rec.shim = True


class _LineTracer:
    """Records which of the target lines run; tracing only code objects of
    the target files that contain a target line, and stops once all ran."""

    def __init__(self, rec: Recorder, targets: dict) -> None:
        self.rec = rec
        self.remaining = {os.path.realpath(k): set(v) for k, v in targets.items() if v}
        self.by_name: dict = {}
        self.by_code: dict = {}

    def _file(self, name: str):
        r = self.by_name.get(name, 0)
        if r == 0:
            real = os.path.realpath(name) if not name.startswith("<") else name
            r = self.by_name[name] = real if real in self.remaining else None
        return r

    def global_trace(self, frame, event, arg):
        code = frame.f_code
        real = self._file(code.co_filename)
        if real is None:
            return None
        want = self.by_code.get(code)
        if want is None:
            lines = {ln for _, ln in dis.findlinestarts(code) if ln}
            want = self.by_code[code] = lines
        if not (want & self.remaining.get(real, set())):
            return None
        return self._local(real)

    def _local(self, real):
        rem = self.remaining[real]
        reached = self.rec.reached.setdefault(real, set())

        def local(frame, event, arg):
            if event == "line":
                ln = frame.f_lineno
                if ln in rem:
                    rem.discard(ln)
                    reached.add(ln)
                    if not any(self.remaining.values()):
                        sys.settrace(None)
                        threading.settrace(None)  # type: ignore[arg-type]
                        return None
            return local
        return local

    def start(self) -> None:
        if any(self.remaining.values()):
            threading.settrace(self.global_trace)
            sys.settrace(self.global_trace)


_ACTIVE: "Recorder | None" = None


def install(cfg: dict) -> Recorder:
    """Patch torch and start recording. Call before any user code runs."""
    global _ACTIVE
    rec = Recorder(cfg)
    _ACTIVE = rec
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch

    rec._torch = torch
    want = cfg.get("device", "auto")
    has_cuda = bool(torch.cuda.is_available()) if want != "cpu" else False
    if want == "cuda" and not has_cuda:
        raise RuntimeError("--device cuda: CUDA is not available")
    rec.device = "cuda" if has_cuda else "cpu"
    seed = int(cfg.get("seed", 0))
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except Exception:
        pass
    torch.manual_seed(seed)
    if cfg.get("threads"):
        torch.set_num_threads(int(cfg["threads"]))
    try:
        # torch.use_deterministic_algorithms imports inductor (seconds): set the flag directly.
        torch._C._set_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
    except Exception:
        pass
    if not cfg.get("timing_only"):
        _patch_autograd(rec, torch)
    _patch_optimizer(rec, torch)
    if cfg.get("saved_tensors", True) and not cfg.get("timing_only"):
        _patch_saved_tensors(rec, torch)
    if rec.device == "cpu" and cfg.get("cpu_shim", True):
        _install_cpu_shim(rec, torch)
    if cfg.get("loops"):
        import builtins

        builtins.__autodetach_loop__ = rec.loops.loop  # type: ignore[attr-defined]
        builtins.__autodetach_while__ = rec.loops.while_  # type: ignore[attr-defined]
    gc.freeze()  # what exists now is ours or torch's: the graph scan skips it
    if cfg.get("trace"):
        _LineTracer(rec, cfg["trace"]).start()
    rec.t_user = time.perf_counter()
    rec.t_last = rec.t_user
    return rec


def package_module(script: str):
    """(dotted name, folder above the package) when `script` sits in a package
    and imports relatively (`from .losses import f`): as a script it would stop
    at that import, so it runs as `python -m pkg.train` does. Else None."""
    import ast

    d, name = os.path.split(os.path.abspath(script))
    if not name.endswith(".py") or not os.path.exists(os.path.join(d, "__init__.py")):
        return None
    try:
        with open(script, "rb") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    if not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree)):
        return None
    parts = [name[:-3]]
    while os.path.exists(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
        d, pkg = os.path.split(d)
        parts.insert(0, pkg)
    if not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts), d


def _run_main(script: str) -> None:
    import runpy

    module = package_module(script)
    if module is None:
        runpy.run_path(script, run_name="__main__")
    else:
        runpy.run_module(module[0], run_name="__main__", alter_sys=True)


def run_script(cfg: dict) -> int:
    """Run cfg['argv'][0] as __main__ under the instrumentation (a package's
    module as `python -m` runs it); write the record; return the exit status
    for the process."""
    argv = list(cfg["argv"])
    script = os.path.abspath(argv[0])
    if cfg.get("cwd"):
        os.chdir(cfg["cwd"])
    cfg.setdefault("root", os.path.dirname(script))
    sys.argv = [script] + argv[1:]
    module = package_module(script)
    sys.path[0:0] = [module[1] if module else os.path.dirname(script)]
    if cfg.get("plain"):
        return _run_plain(script)
    try:
        rec = install(cfg)
    except BaseException as exc:  # setup failed: the record says so
        rec = Recorder(cfg)
        rec.status = "setup_error"
        rec.exception = {"type": type(exc).__name__, "message": str(exc)[:2000], "line": None, "file": None}
        rec.write()
        return 3
    code = 0
    try:
        _run_main(script)
        rec.status = "ok"
    except StepBudgetReached:
        rec.status = "budget"
    except SystemExit as exc:
        if exc.code in (None, 0):
            rec.status = "ok"
        else:
            rec.status = "error"
            rec.exception = {"type": "SystemExit", "message": str(exc.code), "line": None, "file": None}
            tb = rec.exception_info(exc)
            rec.exception.update(line=tb["line"], file=tb["file"])
            code = 1
    except BaseException as exc:
        rec.status = "error"
        rec.exception = rec.exception_info(exc)
        traceback.print_exc()
        code = 1
    finally:
        sys.settrace(None)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        rec.write()
    return code


def _run_plain(script: str) -> int:
    """No instrumentation: run the script as `python script` would."""
    try:
        _run_main(script)
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def install_for_command() -> None:
    """The sitecustomize entry: instrument every Python process of a `--run`
    command (each writes its own record, named by pid)."""
    path = os.environ.get("AUTODETACH_VERIFY_CONFIG")
    if not path:
        return
    with open(path, encoding="utf-8") as fh:
        cfg = json.load(fh)
    cfg["per_pid"] = True
    try:
        rec = install(cfg)
    except BaseException as exc:
        rec = Recorder(cfg)
        rec.status = "setup_error"
        rec.exception = {"type": type(exc).__name__, "message": str(exc)[:2000], "line": None, "file": None}
        rec.write()
        return
    rec.status = "ok"
    prev_hook = sys.excepthook

    def hook(tp, value, tb):
        if isinstance(value, StepBudgetReached):
            rec.status = "budget"
            return
        rec.status = "error"
        rec.exception = rec.exception_info(value)
        prev_hook(tp, value, tb)

    sys.excepthook = hook

    def finish():
        if rec.stopped and rec.status == "ok":
            rec.status = "budget"
        rec.write()

    atexit.register(finish)


def drop_launch_dir() -> None:
    """`python -m` puts the directory it was started from first on sys.path;
    `python script.py` does not (run_script adds the script's directory).
    Drop it, so that whatever lies there (a copy of torch's sources in /tmp,
    a repository's `tests` package) shadows nothing the program imports."""
    given = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    if sys.path and sys.path[0] in ("", os.getcwd()) and os.path.abspath(sys.path[0] or ".") not in given:
        del sys.path[0]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as fh:
        cfg = json.load(fh)
    return run_script(cfg)


if __name__ == "__main__":
    drop_launch_dir()
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
