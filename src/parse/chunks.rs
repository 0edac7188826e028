//! The rest of a stateless line input, cut into chunks of whole lines that
//! worker threads parse into sinks of their own, joined at the end in an
//! order-free way (the output is the same bytes whatever `--threads` says).
//!
//! In: the input's remaining [`Lines`](crate::read::Lines) and its
//! [`Format`]. Out: the workers' events joined into the sink, and their
//! accounts merged into the input's [`InputStats`].
//!
//! ```text
//! lines 201.. -> [4 MiB chunk] [4 MiB chunk] ... -> worker 1 | worker 2 -> sink.join
//! ```

use super::error::ParseError;
use super::lines::LineCx;
use super::others::LinePlan;
use super::record::Builder;
use super::stats::InputStats;
use super::timestamp::TimeParser;
use super::ParseOptions;
use crate::event::EventSink;
use crate::formats::{Catalogue, Format};

/// Bytes handed to a worker at a time: large enough that the hand-off is
/// noise, small enough that both cores stay busy on a modest file.
const CHUNK_BYTES: usize = 4 << 20;

/// Parse the rest of a line input on `opts.threads` workers. The reader
/// (this thread) cuts chunks; each worker keeps its own sink, statistics and
/// timestamp cache; all are joined at the end, in an order-free way. Chunk
/// buffers go back to the reader to be filled again, so memory stays at a
/// few chunks per worker and no page is faulted in twice. With one thread
/// the chunks are parsed here, in the same way.
#[allow(clippy::too_many_arguments)]
pub(super) fn parse_chunks<S: EventSink>(
    lines: &mut crate::read::Lines,
    format: &Format,
    plan: &LinePlan,
    cat: &Catalogue,
    opts: &ParseOptions,
    index: u32,
    year_seed: &TimeParser,
    stats: &mut InputStats,
    sink: &mut S,
) -> Result<(), ParseError> {
    use std::sync::{mpsc, Mutex};
    // One worker's state: its sink, statistics and timestamp cache.
    let worker =
        |part: &mut S, chunk: &crate::read::Chunk, cx: &mut LineCx<'_, '_>, st: &mut InputStats| {
            // A chunk is read alone: no record above its first line.
            cx.above.clear();
            for (n, line, bad) in chunk.lines() {
                st.invalid_utf8 += u64::from(bad);
                cx.line(n, &line, st, part);
            }
        };
    let continuations = &format.def.continuation_prefixes;
    if opts.threads <= 1 {
        let mut reader = None;
        let mut times = Builder::new(year_seed.for_chunk(), None);
        let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times, plan);
        let mut st = InputStats::default();
        let mut buf = Vec::new();
        while let Some(chunk) = lines.next_chunk_into(CHUNK_BYTES, continuations, buf)? {
            if let Some(p) = &opts.progress {
                (p.0)(chunk.data.len() as u64);
            }
            worker(sink, &chunk, &mut cx, &mut st);
            buf = chunk.data;
        }
        st.zoneless = cx.times.times.saw_zoneless;
        stats.merge(st);
        return Ok(());
    }
    let (tx, rx) = mpsc::sync_channel::<crate::read::Chunk>(opts.threads * 2);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    let rx = Mutex::new(rx);
    let forks: Vec<S> = (0..opts.threads).map(|_| sink.fork()).collect();
    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = forks
            .into_iter()
            .map(|mut part| {
                let rx = &rx;
                let back = back_tx.clone();
                let worker = &worker;
                scope.spawn(move || {
                    let mut st = InputStats::default();
                    let mut reader = None;
                    // Year-less times in a chunk start from the year the head was in.
                    let mut times = Builder::new(year_seed.for_chunk(), None);
                    let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times, plan);
                    loop {
                        // The lock is held only to take the next chunk.
                        let next = rx.lock().map(|r| r.recv());
                        let Ok(Ok(chunk)) = next else { break };
                        worker(&mut part, &chunk, &mut cx, &mut st);
                        // The reader may be gone already: the buffer is then dropped.
                        let _ = back.send(chunk.data);
                    }
                    st.zoneless = cx.times.times.saw_zoneless;
                    (part, st)
                })
            })
            .collect();
        drop(back_tx);
        let mut read_result = Ok(());
        // A fixed set of buffers: the channel's, one per worker and one being
        // filled. Past that the reader waits for one to come back rather
        // than fault in a fresh one.
        let pool = opts.threads * 3 + 1;
        let mut made = 0;
        loop {
            let buf = match back_rx.try_recv() {
                Ok(b) => b,
                Err(_) if made < pool => {
                    made += 1;
                    Vec::new()
                }
                Err(_) => back_rx.recv().unwrap_or_default(),
            };
            match lines.next_chunk_into(CHUNK_BYTES, continuations, buf) {
                Ok(Some(chunk)) => {
                    if let Some(p) = &opts.progress {
                        (p.0)(chunk.data.len() as u64);
                    }
                    if tx.send(chunk).is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    read_result = Err(e);
                    break;
                }
            }
        }
        drop(tx);
        let parts: Vec<_> = workers.into_iter().filter_map(|w| w.join().ok()).collect();
        (read_result, parts)
    });
    let (read_result, parts) = results;
    if parts.len() != opts.threads {
        return Err(ParseError::Worker {
            path: stats.path.clone(),
        });
    }
    for (part, st) in parts {
        sink.join(part);
        stats.merge(st);
    }
    read_result?;
    Ok(())
}
