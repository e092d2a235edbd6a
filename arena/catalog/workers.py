"""A generated catalog's products, made and indexed in parts (`arena.catalog.writer.PartWriter`): by forked generator
workers, a part each, or by the builder itself (one worker, or two chunks or fewer). A chunk's products are indexed
where they are made; the builder gets, in row order, what its digest and statistics read (`Chunk`), from a worker
through a file of the build's hand-over folder (in memory where /dev/shm is), the file's name through a pipe.

Indexing in the workers, where the builder used to add every product to one index writer, spares the builder the
products' columns pickled and read back: about 4% of a 2.5M build's CPU over five quiet pairs, nothing measurable at
1M (docs/performance.md). It also makes a build end with one line when a worker fails or dies (a pool replaced a
killed worker and waited for its chunk for ever), a builder whose own memory holds no index, and workers that end
with a killed builder."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import connection
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from arena.catalog import generator as gen
from arena.catalog.index import SERVICE_BITS
from arena.catalog.manifest import CatalogError
from arena.catalog.webcorpus import web_pages_of
from arena.catalog.writer import PartWriter, Rows
from arena.gcpause import glibc, keep_freed_heap


class Chunk(NamedTuple):
    """What the builder gets of a chunk, indexed where it was made: its canonical JSON (the digest's, joined by
    newlines) and per product what the statistics count."""

    row: int
    canonical: bytes
    shops: list[str]
    services: list[list[str]]
    prices: list[float]
    sold: list[int]
    categories: list[str]
    n_skus: list[int]
    model_keys: list[int]


class _Maker:
    """One part's products: the catalog's world, the part's index, the shops numbered as the world numbers them."""

    def __init__(self, world: gen.World, part: Path, threads: int) -> None:
        self.world = world
        self.numbers = {shop.shop_id: shop.ordinal for shop in self.world.shops}
        self.part = PartWriter(part, threads=threads)

    def chunk(self, chunk: int) -> Chunk:
        canonical, ids, contents, shops, services, masks, prices, sold, categories, n_skus, model_keys = (
            gen.chunk_columns(self.world, chunk, SERVICE_BITS)
        )
        rows = Rows(chunk * gen.CHUNK, canonical, ids, contents, shops, services, masks, prices, sold)
        numbers = self.numbers
        self.part.add_rows(rows, [numbers[shop] for shop in shops])
        return Chunk(rows.row, canonical, shops, services, prices, sold, categories, n_skus, model_keys)

    def finish(self) -> list[str]:
        """The part committed; the shops by the numbers its index holds."""
        self.part.commit()
        return [shop.shop_id for shop in self.world.shops]


def parts_for(size: int, workers: int) -> int:
    """How many parts a build of ``size`` products with ``workers`` generator workers indexes in."""
    return 1 if workers <= 1 or (size + gen.CHUNK - 1) // gen.CHUNK <= 2 else workers


#: A web page and its canonical JSON (what is stored and digested).
PageRow = tuple[dict[str, Any], bytes]


@dataclass
class Made:
    """The catalog's web pages, its products' chunks in row order, and `finish`, to call after the last: every part
    committed, the shops by the numbers the parts gave them."""

    pages: list[PageRow]
    chunks: Iterator[Chunk]
    finish: Callable[[], list[str]]


def _page_rows(world: gen.World) -> list[PageRow]:
    with signals_held():  # compiled code
        return [(page, gen.canonical_json(page)) for page in web_pages_of(world)]


@contextmanager
def made_products(seed: int, size: int, parts: list[Path], handoff: str) -> Iterator[Made]:
    """The products of catalog (``seed``, ``size``) made and indexed into ``parts`` (`parts_for` of them): in this
    process for one, by a forked worker each otherwise. The world is built once, before the workers are forked
    (they share it: each built its own in about a second at 2.5M). The workers are forked on entry, so before the
    caller starts any thread (a fork of a process whose other threads hold a lock can leave the child waiting on it
    for ever); on exit they are ended, whatever they were doing."""
    with signals_held():
        world = gen.World.build(seed, size)
    n_chunks = (size + gen.CHUNK - 1) // gen.CHUNK
    if len(parts) == 1:
        maker = _Maker(world, parts[0], threads=max(1, min(2, os.cpu_count() or 1)))
        try:
            yield Made(_page_rows(world), _made_here(maker, n_chunks), maker.finish)
        except BaseException:
            maker.part.rollback()  # its indexing threads ended before the build's folder is removed
            raise
        return
    pool = _Pool(world, parts, handoff)
    try:
        pages = _page_rows(world)  # while the workers make their first chunks
        del world  # the workers have it: the builder's copy goes, with the model cache its pages filled (a 1M
        yield Made(pages, pool.chunks(n_chunks), pool.finish)  # build's peak RSS 1043 -> 999 MB)
    finally:
        pool.close()


def _made_here(maker: _Maker, n_chunks: int) -> Iterator[Chunk]:
    for chunk in range(n_chunks):
        with signals_held():
            made = maker.chunk(chunk)
        yield made


_HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held while the generator's compiled code runs in this process (the builder: the world, the
    web pages, a build in one part's chunks), their handlers run as the block ends. CPython runs a signal's Python
    handler inside a long integer division, and the compiled code (mypyc) takes a failed integer operation for want
    of memory and aborts: a handler that raises there (Ctrl-C's KeyboardInterrupt, a command's SIGTERM) ended the
    build with SIGABRT ('fatal: out of memory'), no clean-up. Only the main thread runs handlers; a worker has none."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    handlers = {sig: handler for sig in _HELD if callable(handler := signal.getsignal(sig))}
    for sig in handlers:
        signal.signal(sig, lambda signum, _frame: held.append(signum))
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


#: the most bytes a chunk's file takes (1,024 products: about 1.3 MB), with room to spare
CHUNK_FILE_BYTES = 4 * 2**20

#: chunks a worker may be given ahead of the builder's reading (a bounded read-ahead keeps memory flat)
AHEAD = 3


def handoff_dir(workers: int) -> str | None:
    """Where the workers' chunk files wait for the builder: /dev/shm (memory) where it is writable and holds the
    read-ahead (workers * `AHEAD` chunks) twice over (a container's /dev/shm is 64 MiB by default), else the
    temporary folder (``TMPDIR``)."""
    try:
        free = os.statvfs("/dev/shm")
    except OSError:
        return None
    room = free.f_bavail * free.f_frsize >= 2 * workers * AHEAD * CHUNK_FILE_BYTES
    return "/dev/shm" if room and os.access("/dev/shm", os.W_OK) else None


_PR_SET_PDEATHSIG = 1  # prctl(2)


def _die_with(parent: int) -> None:
    """This worker killed when the builder that forked it dies, even by SIGKILL (Linux's parent-death signal): it
    would otherwise write on into a dead build's folders and keep their locks. Elsewhere the pipe's end does it."""
    libc = glibc()
    if libc is not None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # died before the signal was set
        os._exit(1)


#: the world a worker forked now takes (`_Pool`; not an argument: the parent's process object would keep it)
_forked_world: gen.World | None = None


def _work(part: Path, handoff: str, parent: int, pipes: Any, own: int) -> None:
    """A forked generator worker: makes and indexes the chunks it is given, each handed over through a file, until
    told to finish (None): then commits its part and sends the shops' numbers. Its failure is sent as one line."""
    _die_with(parent)
    tasks, results = pipes[own][0][0], pipes[own][1][1]
    for w, ((task_out, task_in), (result_out, result_in)) in enumerate(pipes):  # every other end closed: the
        for end in (task_in, result_out) if w == own else (task_out, task_in, result_out, result_in):  # builder's
            end.close()  # death is an end of file here
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a fork inherits the builder's handlers (a draining node's)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the builder's to handle
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # held by the builder over the fork (`_Pool`): now ours
    gc.disable()  # the build's objects are in no cycle; collections would walk the model cache (`paused_gc`)
    keep_freed_heap()  # a chunk's products freed and the next made: faulting the heap back in was 4 us a product
    try:
        assert _forked_world is not None
        maker = _Maker(_forked_world, part, threads=1)
        while (chunk := tasks.recv()) is not None:
            path = os.path.join(handoff, str(chunk))
            with open(path, "wb") as fh:
                pickle.dump(maker.chunk(chunk), fh, protocol=pickle.HIGHEST_PROTOCOL)
            results.send(("chunk", chunk, path))
        results.send(("done", maker.finish()))
    except (EOFError, BrokenPipeError):  # the builder is gone
        return
    except BaseException as exc:  # noqa: BLE001 - every failure goes to the builder, which ends the build
        results.send(("failed", " ".join(f"{type(exc).__name__}: {exc}".split())))  # one line


def _failed(detail: str) -> CatalogError:
    return CatalogError(f"a catalog generator worker failed: {detail}; nothing was written")


class _Pool:
    """The forked workers, a part each, given chunks as they finish them (the least busy first)."""

    def __init__(self, world: gen.World, parts: list[Path], handoff: str) -> None:
        ctx = multiprocessing.get_context("fork")
        pipes = [(ctx.Pipe(duplex=False), ctx.Pipe(duplex=False)) for _ in parts]
        self._tasks = [task_in for (_, task_in), _ in pipes]
        self._results = [result_out for _, (result_out, _) in pipes]
        self._busy = [0] * len(parts)
        self._finished: set[int] = set()
        self._stopped = False
        self._shops: list[str] = []
        self._procs = []
        # Ctrl-C and SIGTERM blocked over the forks: a worker runs the builder's handlers until it sets its own
        # (`_work`), and one run there printed a traceback where the builder says one line
        global _forked_world
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        _forked_world = world
        try:
            for own, part in enumerate(parts):
                args = (part, handoff, os.getpid(), pipes, own)
                proc = ctx.Process(target=_work, args=args, name=f"arena-catalog-worker-{own}", daemon=True)
                proc.start()
                self._procs.append(proc)
        except BaseException:
            self.close()  # the workers started before a fork failed
            raise
        finally:
            _forked_world = None
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for (task_out, _), (_, result_in) in pipes:
            task_out.close()
            result_in.close()

    def chunks(self, n_chunks: int) -> Iterator[Chunk]:
        ready: dict[int, str] = {}
        given = 0
        for want in range(n_chunks):
            while given < min(n_chunks, want + AHEAD * len(self._procs)):
                worker = self._busy.index(min(self._busy))
                self._give(worker, given)
                self._busy[worker] += 1
                given += 1
                if given == n_chunks:  # each worker commits its part once its last chunk is made: meanwhile the
                    self._stop()  # builder reads the last chunks, digests the web pages, counts the statistics
            while want not in ready:
                worker, message = self._receive()
                if message[0] == "chunk":
                    self._busy[worker] -= 1
                    ready[message[1]] = message[2]
            path = ready.pop(want)
            with open(path, "rb", buffering=0) as fh:
                data = fh.read()
            os.unlink(path)
            yield pickle.loads(data)

    def _stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            for worker in range(len(self._tasks)):
                self._give(worker, None)

    def _give(self, w: int, task: int | None) -> None:
        """Worker ``w`` given a chunk to make (None: to commit its part); CatalogError where it has failed or ended
        (its end of the pipe closed: a BrokenPipeError otherwise, which the command line takes for a closed
        stdout and exits 1 on without a word)."""
        try:
            self._tasks[w].send(task)
        except OSError:
            self._ended(w)

    def finish(self) -> list[str]:
        self._stop()
        while len(self._finished) < len(self._procs):
            _, message = self._receive()
            if message[0] != "done":
                raise CatalogError(f"a catalog generator worker sent {message[0]!r} at the end; build again")
        return self._shops

    def _receive(self) -> tuple[int, tuple[Any, ...]]:
        """The next message of a worker not finished; CatalogError where one failed or ended."""
        while True:
            live = [w for w in range(len(self._procs)) if w not in self._finished]
            ready = connection.wait([self._results[w] for w in live] + [self._procs[w].sentinel for w in live])
            for w in live:
                if self._results[w] in ready:  # before its end: what it sent before it ended
                    try:
                        message = self._results[w].recv()
                    except EOFError:
                        self._ended(w)
                    if message[0] == "failed":
                        raise _failed(message[1])
                    if message[0] == "done":  # its part committed: its shops' numbers (every part's the same)
                        self._finished.add(w)
                        self._shops = message[1]
                    return w, message
            for w in live:
                if self._procs[w].sentinel in ready:
                    self._ended(w)

    def _ended(self, w: int) -> NoReturn:
        """CatalogError: worker ``w`` ended; its failure where it sent one before it did."""
        results = self._results[w]
        try:
            while results.poll():
                message = results.recv()
                if message[0] == "failed":
                    raise _failed(message[1])
        except (EOFError, OSError):  # nothing more from it
            pass
        proc = self._procs[w]
        proc.join(10)
        raise CatalogError(
            f"a catalog generator worker (pid {proc.pid}) ended mid-build (exit code {proc.exitcode}); nothing was "
            "written: build again (a killed worker: see whether the machine ran out of memory)"
        )

    def close(self) -> None:
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self._procs:
            proc.join()
        for end in (*self._tasks, *self._results):
            end.close()
