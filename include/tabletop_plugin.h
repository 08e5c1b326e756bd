/* The Tabletop plugin ABI 3.0, generated from plugins/sdk/src/abi.rs by
 * `cargo run -p tabletop-tests --bin c-header`. Do not edit: scripts/test
 * checks it is current. docs/plugin-abi.md explains every function. */

#ifndef TABLETOP_PLUGIN_H
#define TABLETOP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct TabletopStateHandle TabletopStateHandle;

// The major ABI version: a plugin with another major version is refused.
#define TABLETOP_ABI_MAJOR 3

// The minor ABI version: extension ids defined since 3.0
// ([`EXT_EXPLAIN_REFUSAL`], then [`EXT_SVG_BOARD`] and
// [`EXT_ACTION_TARGETS`] given their meaning).
#define TABLETOP_ABI_MINOR 2

// The status code of success.
#define TABLETOP_CODE_OK 0

// A viewer who plays no seat (the wire code of
// [`Viewer::Spectator`](crate::Viewer::Spectator)).
#define TABLETOP_VIEWER_SPECTATOR UINT32_MAX

// [`RawStatus::kind`]: players are to move.
#define TABLETOP_STATUS_TO_MOVE 0

// [`RawStatus::kind`]: chance is to act.
#define TABLETOP_STATUS_CHANCE 1

// [`RawStatus::kind`]: the game is over.
#define TABLETOP_STATUS_TERMINAL 2

// [`RawTransition::kind`]: a joint action.
#define TABLETOP_TRANSITION_MOVES 0

// [`RawTransition::kind`]: a chance outcome.
#define TABLETOP_TRANSITION_CHANCE 1

// [`PluginApi::ply`]'s and [`PluginApi::apply_chance`]'s `lend`: lend the
// legal actions of the lowest-numbered player to move in the new state.
#define TABLETOP_LEND_FIRST_MOVER UINT32_MAX

// [`PluginApi::ply`]'s and [`PluginApi::apply_chance`]'s `lend`: lend
// nothing, only report the new status. It is a seat number no match has
// (one past the largest seat), and a seat that is not to move is lent
// nothing: a plugin needs no case of its own for it, and its legal list
// for that seat is empty like any non-mover's.
#define TABLETOP_LEND_NOTHING 32

// [`RawPly`]'s kind (bits 0–1 of [`RawPly::word`]) for a call that failed:
// the other three kinds are the status kinds ([`STATUS_TO_MOVE`],
// [`STATUS_CHANCE`], [`STATUS_TERMINAL`]).
#define TABLETOP_PLY_FAILED 3

// The largest length [`RawPly`] can carry (30 bits): lent ids, or bytes of
// an error message.
#define TABLETOP_PLY_MAX_LEN ((1 << 30) - 1)

// [`PluginApi::chance_outcomes`]' kind: the outcomes are listed.
#define TABLETOP_CHANCE_EXPLICIT 0

// [`PluginApi::chance_outcomes`]' kind: too many outcomes to list; the host
// draws a uniformly random `u64` (no outcomes are lent).
#define TABLETOP_CHANCE_SAMPLED 1

// The most bytes an SVG board may have: a host refuses a larger one (and
// the conformance kit fails a game that writes one).
#define TABLETOP_MAX_SVG_BYTES (256 * 1024)

// Bytes allocated by the plugin and handed to the caller, who releases them
// with [`PluginApi::free_buf`]. Never freed by the caller's allocator.
typedef struct {
  // First byte (null when empty).
  uint8_t *ptr;
  // Bytes in use.
  size_t len;
  // Allocated capacity (needed by the plugin to free it).
  size_t cap;
} TabletopPluginBuf;

// A borrowed UTF-8 string: owned by the caller, valid for the duration of the
// call. A null `ptr` means "absent" where a function says so.
typedef struct {
  // First byte, or null.
  const uint8_t *ptr;
  // Length in bytes.
  size_t len;
} TabletopStrRef;

// One option of a setup, borrowed for the duration of a call: the option's
// name and its raw text, as a client sent them (validated by the plugin).
typedef struct {
  // The option's name.
  TabletopStrRef name;
  // The option's raw text.
  TabletopStrRef value;
} TabletopRawOption;

// A state's status, as plain data.
typedef struct {
  // One of [`STATUS_TO_MOVE`], [`STATUS_CHANCE`], [`STATUS_TERMINAL`].
  uint32_t kind;
  // For [`STATUS_TO_MOVE`]: bitmask of the players to move (bit `p` for
  // seat `p`); 0 otherwise.
  uint32_t movers;
} TabletopRawStatus;

// One listed outcome of a chance node and its probability.
//
// A `#[repr(C)]` pair rather than `(u64, f64)`, whose layout Rust does not
// promise.
typedef struct {
  // The outcome, as passed to `apply_chance`.
  uint64_t outcome;
  // Its probability (positive; a node's probabilities sum to 1).
  double probability;
} TabletopRawOutcome;

// What [`PluginApi::ply`] and [`PluginApi::apply_chance`] return: 16 bytes
// of two integer words, which the C calling conventions of x86-64 and
// AArch64 return in two registers (`rax:rdx`, `x0:x1`), so a ply's crossing
// stores and reloads nothing.
//
// [`RawPly::word`] packs, from the lowest bit:
// - bits 0–1, the kind: a status kind ([`STATUS_TO_MOVE`],
//   [`STATUS_CHANCE`], [`STATUS_TERMINAL`]) on success, [`PLY_FAILED`] on
//   failure;
// - bits 2–31, a length (at most [`PLY_MAX_LEN`]): on success how many
//   legal ids are lent at [`RawPly::lent`], on failure how many bytes of
//   UTF-8 message are lent there;
// - bits 32–63: on success the movers' bitmask when the kind is
//   [`STATUS_TO_MOVE`] (0 otherwise), on failure the
//   [`ErrorKind`](crate::ErrorKind) code.
//
// Both lent arrays are the plugin's own and belong to the handle: valid
// until the next call with the handle or its `free_state` (a failure on a
// null handle lends a static message). `lent` may dangle when the length
// is 0.
typedef struct {
  // The lent ids (`*const u64`), or the message's bytes (`*const u8`).
  const void *lent;
  // Kind, length and movers or error code; see the type's docs.
  uint64_t word;
} TabletopRawPly;

typedef uint32_t TabletopPlayer;

typedef uint64_t TabletopActionId;

// One player's action within a joint action.
//
// `#[repr(C)]`: slices of moves cross the plugin ABI as they are, without a
// copy (see [`crate::abi::RawMove`]).
typedef struct {
  // Who acts.
  TabletopPlayer player;
  // What they do.
  TabletopActionId action;
} TabletopMove;

// One player's action in a joint action: [`Move`](crate::Move) itself, which
// is `#[repr(C)]` (`player: u32`, then `action: u64`), so joint actions cross
// the boundary without a copy.
typedef TabletopMove TabletopRawMove;

// A transition, borrowed for the duration of a call.
typedef struct {
  // [`TRANSITION_MOVES`] or [`TRANSITION_CHANCE`].
  uint32_t kind;
  // For moves: the first move (caller-owned).
  const TabletopRawMove *moves;
  // For moves: how many.
  size_t move_count;
  // For chance: the outcome.
  uint64_t outcome;
} TabletopRawTransition;

// The function table a plugin exports: the core every game has.
//
// See the module docs for the conventions every function follows (threads,
// status codes, buffers, lent arrays, handles, panics). All fields are
// required; optional capabilities are extensions, found with
// [`PluginApi::get_extension`].
typedef struct {
  // [`ABI_MAJOR`] of the SDK the plugin was built with.
  uint32_t abi_major;
  // [`ABI_MINOR`] of the SDK the plugin was built with.
  uint32_t abi_minor;
  // `size_of::<PluginApi>()` in the plugin: a host refuses a table smaller
  // than its own.
  size_t size;
  // Releases a buffer this plugin returned. An empty buffer (null `ptr`)
  // is ignored. Each buffer is released once; it must not be read after.
  void (*free_buf)(TabletopPluginBuf buf);
  // Installs the host's log sink, or removes it with `None`. Process-wide:
  // the plugin may call the sink from any thread until it is replaced.
  void (*set_logger)(void (*logger)(uint32_t level, TabletopStrRef message));
  // Writes the manifest as JSON into `out` (the SDK's `Manifest`: name,
  // version, player range, options, rules summary and the `chance`,
  // `simultaneous`, `hidden_information` and `removable_players` claims).
  // The same text on every call.
  int32_t (*manifest)(TabletopPluginBuf *out);
  // Looks up the extension with the versioned id `id` (UTF-8, borrowed for
  // the call; see the `EXT_` constants). Returns a pointer to the
  // extension's static table (its `…Ext` struct), valid as long as the
  // library, or null when the plugin does not offer it. Never fails,
  // never allocates; the same answer on every call.
  const void *(*get_extension)(TabletopStrRef id);
  // Creates a state for `players` seats.
  //
  // `options` points to `option_count` [`RawOption`]s (null when
  // `option_count` is 0): raw texts validated by the plugin against its
  // manifest, each name at most once, unnamed options taking their
  // defaults. `position` is a position text, or null for the game's start.
  // On success writes a new handle, owned by the caller until
  // `free_state`, into `*state_out` and its status into `*status_out`; on
  // failure writes neither and `out` holds the message
  // ([`ErrorKind::InvalidOption`](crate::ErrorKind::InvalidOption) or
  // [`ErrorKind::InvalidPosition`](crate::ErrorKind::InvalidPosition)).
  // Touches no existing handle.
  int32_t (*new_state)(uint32_t players,
                       const TabletopRawOption *options,
                       size_t option_count,
                       TabletopStrRef position,
                       TabletopStateHandle **state_out,
                       TabletopRawStatus *status_out,
                       TabletopPluginBuf *out);
  // Writes a new, independent copy of `state` (same status) into
  // `*state_out`, owned by the caller. Only reads `state`.
  int32_t (*clone_state)(const TabletopStateHandle *state,
                         TabletopStateHandle **state_out,
                         TabletopPluginBuf *out);
  // Destroys a handle and everything it lent. Null is ignored. The handle
  // must not be used after.
  void (*free_state)(TabletopStateHandle *state);
  // Writes the status of `state` into `*status_out`. Only reads `state`.
  int32_t (*status)(const TabletopStateHandle *state,
                    TabletopRawStatus *status_out,
                    TabletopPluginBuf *out);
  // Lends the chance node of `state`, whose status is chance.
  //
  // Writes [`CHANCE_EXPLICIT`] or [`CHANCE_SAMPLED`] into `*kind_out`. For
  // an explicit node writes a pointer to `*count_out` [`RawOutcome`]s into
  // `*outcomes_out`, in the game's order (a lent array); for a sampled one
  // `*count_out` is 0 and the pointer may dangle. Only reads `state`.
  int32_t (*chance_outcomes)(const TabletopStateHandle *state,
                             uint32_t *kind_out,
                             const TabletopRawOutcome **outcomes_out,
                             size_t *count_out,
                             TabletopPluginBuf *out);
  // Writes every seat's result as JSON into `out`:
  // `[{"rank":1,"score":3.0},…]`, one entry per seat, rank 1 first place
  // and shared ranks for ties. Only for a terminal state; only reads it.
  int32_t (*results)(const TabletopStateHandle *state, TabletopPluginBuf *out);
  // Lends `player`'s legal action ids, ascending: writes a pointer to
  // `*count_out` ids into `*ids_out` (a lent array). Empty for a seat that
  // is not to move. Only reads `state`.
  int32_t (*legal_actions)(const TabletopStateHandle *state,
                           uint32_t player,
                           const uint64_t **ids_out,
                           size_t *count_out,
                           TabletopPluginBuf *out);
  // Applies a joint action and lends legal actions of the new state: one
  // crossing per ply.
  //
  // `moves` points to `count` moves (caller-owned, read during the call;
  // non-null and aligned even when `count` is 0, as a slice's pointer is):
  // exactly one per player to move. `lend` names whose legal actions to
  // lend afterwards: a seat (nothing for a seat not to move), which
  // [`LEND_NOTHING`] is, or [`LEND_FIRST_MOVER`].
  //
  // On success the answer's kind is the new status's, and when it is "to
  // move" the asked player's ids are lent (none for a seat not to move).
  // On failure the kind is [`PLY_FAILED`] with the error code and a lent
  // message, and the state is unchanged unless the call panicked (which
  // poisons the handle). Nothing is allocated for the caller. A legal
  // list longer than [`PLY_MAX_LEN`] fails with
  // [`ErrorKind::Internal`](crate::ErrorKind::Internal).
  TabletopRawPly (*ply)(TabletopStateHandle *state,
                        const TabletopRawMove *moves,
                        size_t count,
                        uint32_t lend);
  // Applies a chance outcome (one listed by `chance_outcomes`, or any
  // `u64` for a sampled node) and answers exactly as [`PluginApi::ply`]
  // does, lending for `lend`.
  TabletopRawPly (*apply_chance)(TabletopStateHandle *state, uint64_t outcome, uint32_t lend);
  // Writes the JSON view of `state` for `viewer` into `out`: only what
  // that viewer may know. Only reads `state`.
  int32_t (*view)(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out);
  // Writes a text rendering for a terminal (80 columns) for `viewer`.
  // Only reads `state`.
  int32_t (*render_text)(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out);
  // Writes the JSON event `viewer` saw when `transition` (borrowed) took
  // `before` to `after`, two handles of this plugin. Only reads both.
  int32_t (*event)(const TabletopStateHandle *before,
                   const TabletopRawTransition *transition,
                   const TabletopStateHandle *after,
                   uint32_t viewer,
                   TabletopPluginBuf *out);
  // Writes the position text of `state` (everything, hidden information
  // included); `new_state` reads it back to an equal state.
  int32_t (*position)(const TabletopStateHandle *state, TabletopPluginBuf *out);
  // Writes the notation of `count` actions of `player` (`ids`, caller-owned):
  // the texts concatenated in order into `out` (untouched when all are
  // empty), and into `ends_out[i]` (caller-owned, `count` entries) the
  // byte offset where the text of `ids[i]` ends. On failure (an id that is
  // not an action, or more than `u32::MAX` bytes) `out` holds the message
  // and `ends_out` is unspecified. Only reads `state`.
  int32_t (*actions_to_strings)(const TabletopStateHandle *state,
                                uint32_t player,
                                const uint64_t *ids,
                                size_t count,
                                uint32_t *ends_out,
                                TabletopPluginBuf *out);
  // Reads `text` as a legal action of `player` and writes its id into
  // `*action_out`. The refusal's message reveals nothing hidden. Only
  // reads `state`.
  int32_t (*parse_action)(const TabletopStateHandle *state,
                          uint32_t player,
                          TabletopStrRef text,
                          uint64_t *action_out,
                          TabletopPluginBuf *out);
} TabletopPluginApi;

#endif  /* TABLETOP_PLUGIN_H */
