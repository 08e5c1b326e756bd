/* The Tabletop plugin ABI 3.2: everything a plugin written in C
 * or C++ needs. Generated from plugins/sdk/src/abi.rs by
 * `cargo run -p tabletop-tests --bin c-header`. Do not edit: scripts/test
 * checks it is current. docs/plugin-abi.md explains every function. */

#ifndef TABLETOP_PLUGIN_H
#define TABLETOP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Marks the one function a plugin exports, `tabletop_plugin_entry`, as
// visible from outside the shared library, whatever the compiler's default
// visibility (`-fvisibility=hidden` included).
#if defined(_WIN32) || defined(__CYGWIN__)
#define TABLETOP_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define TABLETOP_EXPORT __attribute__((visibility("default")))
#else
#define TABLETOP_EXPORT
#endif

// A game state: opaque to the host. The plugin defines
// `struct TabletopStateHandle` as it likes; the host only passes pointers
// to it back to the plugin that made them.
typedef struct TabletopStateHandle TabletopStateHandle;

// Conventions for every function of the table and of every extension:
//
// - Threads. Every function may be called from any thread. A state
//   handle is used by one call at a time (the caller serialises calls on
//   a handle); different handles may be used concurrently.
// - Status codes. A function returning `int32_t` returns `TABLETOP_CODE_OK` or an
//   error code (`TABLETOP_CODE_INVALID_OPTION` … `TABLETOP_CODE_UNSUPPORTED`), and on
//   failure writes a UTF-8 message to its `out` buffer. Functions
//   returning a `TabletopRawPly` pack the code and a lent message into it
//   instead.
// - Borrowed input. `TabletopStrRef`s and pointer+length pairs are owned by
//   the caller and read only during the call.
// - Plugin-owned output. A `TabletopPluginBuf` written to `out` is allocated
//   by the plugin and released by the caller with `free_buf`,
//   exactly once, from any thread. An untouched `out` stays empty (null
//   `ptr`); the caller passes it empty.
// - Lent arrays. Legal actions, chance outcomes and a failed ply's
//   message are lent: the array belongs to the handle and stays valid
//   until the next call with that handle or its `free_state`. The caller
//   copies what it keeps. An empty lent array may come with a dangling
//   pointer.
// - State handles (`TabletopStateHandle`) are created by `new_state`,
//   `clone_state` and the resample extension, and owned by the caller
//   until passed to `free_state`. A handle is only ever passed to the
//   plugin that made it. A function given a read-only (`const`) handle
//   does not write through it; the handle is writable for the calls that
//   change the game (`ply`, `apply_chance`, `remove_player`) and for those
//   that lend an array kept in the handle (`legal_actions`,
//   `chance_outcomes`).
// - No unwinding. No function unwinds into the caller: a panic (or C++
//   exception) inside is caught and reported as `TABLETOP_CODE_PANIC`. After a
//   panic in a call that mutates a state, that handle is poisoned: later
//   calls on it fail with `TABLETOP_CODE_POISONED` and it may only be freed.
// - Viewers are a seat index, or `TABLETOP_VIEWER_SPECTATOR` for someone who
//   plays no seat.


// The major ABI version: a plugin with another major version is refused.
#define TABLETOP_ABI_MAJOR 3

// The minor ABI version: extension ids defined since 3.0
// (`TABLETOP_EXT_EXPLAIN_REFUSAL`, then `TABLETOP_EXT_SVG_BOARD` and
// `TABLETOP_EXT_ACTION_TARGETS` given their meaning).
#define TABLETOP_ABI_MINOR 2

// The status code of success.
#define TABLETOP_CODE_OK 0

// Status code: an option is unknown, mistyped, out of range, or does not
// combine with the others or the player count.
#define TABLETOP_CODE_INVALID_OPTION 1

// Status code: a position text does not parse or is impossible.
#define TABLETOP_CODE_INVALID_POSITION 2

// Status code: an action text does not parse.
#define TABLETOP_CODE_INVALID_NOTATION 3

// Status code: the action is not legal in this state for this player.
#define TABLETOP_CODE_ILLEGAL_ACTION 4

// Status code: the player is not to move (or the state is a chance node,
// or the game is over); also a chance call (`chance_outcomes`,
// `apply_chance`) on a state where chance is not to act, which is every
// state of a game without chance.
#define TABLETOP_CODE_NOT_YOUR_TURN 5

// Status code: the plugin caught a panic (or exception) inside the call;
// always a bug in the plugin. Code 6 is never used.
#define TABLETOP_CODE_PANIC 7

// Status code: the handle was used after a call on it panicked; it may
// only be freed.
#define TABLETOP_CODE_POISONED 8

// Status code: any other fault inside the plugin or at the boundary. A
// host reads a code it does not know as this one.
#define TABLETOP_CODE_INTERNAL 9

// Status code: the game does not offer this operation (removing a seat
// from a game whose manifest says `removable_players: false`).
#define TABLETOP_CODE_UNSUPPORTED 10

// Log level of `TabletopLogFn`: something failed.
#define TABLETOP_LOG_ERROR 1

// Log level of `TabletopLogFn`: something looks wrong.
#define TABLETOP_LOG_WARN 2

// Log level of `TabletopLogFn`: worth knowing.
#define TABLETOP_LOG_INFO 3

// Log level of `TabletopLogFn`: for developers.
#define TABLETOP_LOG_DEBUG 4

// Log level of `TabletopLogFn`: very detailed.
#define TABLETOP_LOG_TRACE 5

// A viewer who plays no seat: a spectator.
#define TABLETOP_VIEWER_SPECTATOR UINT32_MAX

// `TabletopRawStatus.kind`: players are to move.
#define TABLETOP_STATUS_TO_MOVE 0

// `TabletopRawStatus.kind`: chance is to act.
#define TABLETOP_STATUS_CHANCE 1

// `TabletopRawStatus.kind`: the game is over.
#define TABLETOP_STATUS_TERMINAL 2

// `TabletopRawTransition.kind`: a joint action.
#define TABLETOP_TRANSITION_MOVES 0

// `TabletopRawTransition.kind`: a chance outcome.
#define TABLETOP_TRANSITION_CHANCE 1

// `ply`'s and `apply_chance`'s `lend`: lend the
// legal actions of the lowest-numbered player to move in the new state.
#define TABLETOP_LEND_FIRST_MOVER UINT32_MAX

// `ply`'s and `apply_chance`'s `lend`: lend
// nothing, only report the new status. It is a seat number no match has
// (one past the largest seat), and a seat that is not to move is lent
// nothing: a plugin needs no case of its own for it, and its legal list
// for that seat is empty like any non-mover's.
#define TABLETOP_LEND_NOTHING 32

// `TabletopRawPly`'s kind (bits 0–1 of `TabletopRawPly.word`) for a call that failed:
// the other three kinds are the status kinds (`TABLETOP_STATUS_TO_MOVE`,
// `TABLETOP_STATUS_CHANCE`, `TABLETOP_STATUS_TERMINAL`).
#define TABLETOP_PLY_FAILED 3

// The largest length `TabletopRawPly` can carry (30 bits): lent ids, or bytes of
// an error message.
#define TABLETOP_PLY_MAX_LEN ((1 << 30) - 1)

// `chance_outcomes`' kind: the outcomes are listed.
#define TABLETOP_CHANCE_EXPLICIT 0

// `chance_outcomes`' kind: too many outcomes to list; the host
// draws a uniformly random 64-bit outcome (no outcomes are lent).
#define TABLETOP_CHANCE_SAMPLED 1

// The most bytes an SVG board may have: a host refuses a larger one (and
// the conformance kit fails a game that writes one).
#define TABLETOP_MAX_SVG_BYTES (256 * 1024)

// Bytes allocated by the plugin and handed to the caller, who releases them
// with `free_buf`. Never freed by the caller's allocator.
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
  // One of `TABLETOP_STATUS_TO_MOVE`, `TABLETOP_STATUS_CHANCE`, `TABLETOP_STATUS_TERMINAL`.
  uint32_t kind;
  // For `TABLETOP_STATUS_TO_MOVE`: bitmask of the players to move (bit `p` for
  // seat `p`); 0 otherwise.
  uint32_t movers;
} TabletopRawStatus;

// One listed outcome of a chance node and its probability.
//
// 16 bytes: the outcome at offset 0, the probability at offset 8.
typedef struct {
  // The outcome, as passed to `apply_chance`.
  uint64_t outcome;
  // Its probability (positive; a node's probabilities sum to 1).
  double probability;
} TabletopRawOutcome;

// What `ply` and `apply_chance` return: 16 bytes
// of two integer words, which the C calling conventions of x86-64 and
// AArch64 return in two registers (`rax:rdx`, `x0:x1`), so a ply's crossing
// stores and reloads nothing.
//
// `TabletopRawPly.word` packs, from the lowest bit:
// - bits 0–1, the kind: a status kind (`TABLETOP_STATUS_TO_MOVE`,
//   `TABLETOP_STATUS_CHANCE`, `TABLETOP_STATUS_TERMINAL`) on success, `TABLETOP_PLY_FAILED` on
//   failure;
// - bits 2–31, a length (at most `TABLETOP_PLY_MAX_LEN`): on success how many
//   legal ids are lent at `TabletopRawPly.lent`, on failure how many bytes of
//   UTF-8 message are lent there;
// - bits 32–63: on success the movers' bitmask when the kind is
//   `TABLETOP_STATUS_TO_MOVE` (0 otherwise), on failure the error's status code
//   (`TABLETOP_CODE_INVALID_OPTION` … `TABLETOP_CODE_UNSUPPORTED`).
//
// Both lent arrays are the plugin's own and belong to the handle: valid
// until the next call with the handle or its `free_state` (a failure on a
// null handle lends a static message). `lent` may dangle when the length
// is 0.
typedef struct {
  // The lent action ids (64-bit), or the message's bytes (UTF-8).
  const void *lent;
  // Kind, length and movers or error code; see the type's docs.
  uint64_t word;
} TabletopRawPly;

typedef uint32_t TabletopPlayer;

typedef uint64_t TabletopActionId;

// One player's action within a joint action.
typedef struct {
  TabletopPlayer player;
  TabletopActionId action;
} TabletopMove;

// One player's action in a joint action: the SDK's `TabletopMove`
// itself, laid out as C lays out a 32-bit `player` followed by a 64-bit
// `action` (16 bytes), so joint actions cross the boundary without a copy.
typedef TabletopMove TabletopRawMove;

// A transition, borrowed for the duration of a call.
typedef struct {
  // `TABLETOP_TRANSITION_MOVES` or `TABLETOP_TRANSITION_CHANCE`.
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
// Every function follows the conventions for every function (threads,
// status codes, buffers, lent arrays, handles, panics). All fields are
// required; optional capabilities are extensions, found with
// `get_extension`.
typedef struct {
  // `TABLETOP_ABI_MAJOR` of the SDK the plugin was built with.
  uint32_t abi_major;
  // `TABLETOP_ABI_MINOR` of the SDK the plugin was built with.
  uint32_t abi_minor;
  // The size in bytes of `TabletopPluginApi` in the plugin: a host refuses a
  // table smaller than its own.
  size_t size;
  // Releases a buffer this plugin returned. An empty buffer (null `ptr`)
  // is ignored. Each buffer is released once; it must not be read after.
  void (*free_buf)(TabletopPluginBuf buf);
  // Installs the host's log sink, or removes it with a null `logger`. Process-wide:
  // the plugin may call the sink from any thread until it is replaced.
  // `logger` is a `TabletopLogFn` or null.
  void (*set_logger)(void (*logger)(uint32_t level, TabletopStrRef message));
  // Writes the manifest as JSON into `out` (the SDK's `Manifest`: name,
  // version, player range, options, rules summary and the `chance`,
  // `simultaneous`, `hidden_information` and `removable_players` claims).
  // The same text on every call.
  int32_t (*manifest)(TabletopPluginBuf *out);
  // Looks up the extension with the versioned id `id` (UTF-8, borrowed for
  // the call; an extension id such as `TABLETOP_EXT_SVG_BOARD`). Returns a pointer to the
  // extension's static table (its `…Ext` struct), valid as long as the
  // library, or null when the plugin does not offer it. Never fails,
  // never allocates; the same answer on every call.
  const void *(*get_extension)(TabletopStrRef id);
  // Creates a state for `players` seats.
  //
  // `options` points to `option_count` `TabletopRawOption`s (null when
  // `option_count` is 0): raw texts validated by the plugin against its
  // manifest, each name at most once, unnamed options taking their
  // defaults. `position` is a position text, or null for the game's start.
  // On success writes a new handle, owned by the caller until
  // `free_state`, into `*state_out` and its status into `*status_out`; on
  // failure writes neither and `out` holds the message
  // (`TABLETOP_CODE_INVALID_OPTION` or
  // `TABLETOP_CODE_INVALID_POSITION`).
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
  // Writes `TABLETOP_CHANCE_EXPLICIT` or `TABLETOP_CHANCE_SAMPLED` into `*kind_out`. For
  // an explicit node writes a pointer to `*count_out` `TabletopRawOutcome`s into
  // `*outcomes_out`, in the game's order (a lent array); for a sampled one
  // `*count_out` is 0 and the pointer may dangle. Reads the game in
  // `state` and may write the lent array into the handle (the handle is
  // not shared: the caller makes one call at a time on it).
  int32_t (*chance_outcomes)(TabletopStateHandle *state,
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
  // is not to move. Reads the game in `state` and may write the lent
  // array into the handle (one call at a time on it).
  int32_t (*legal_actions)(TabletopStateHandle *state,
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
  // `TABLETOP_LEND_NOTHING` is, or `TABLETOP_LEND_FIRST_MOVER`.
  //
  // On success the answer's kind is the new status's, and when it is "to
  // move" the asked player's ids are lent (none for a seat not to move).
  // On failure the kind is `TABLETOP_PLY_FAILED` with the error code and a lent
  // message, and the state is unchanged unless the call panicked (which
  // poisons the handle). Nothing is allocated for the caller. A legal
  // list longer than `TABLETOP_PLY_MAX_LEN` fails with
  // `TABLETOP_CODE_INTERNAL`.
  TabletopRawPly (*ply)(TabletopStateHandle *state,
                        const TabletopRawMove *moves,
                        size_t count,
                        uint32_t lend);
  // Applies a chance outcome (one listed by `chance_outcomes`, or any
  // 64-bit value for a sampled node) and answers exactly as `ply`
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
  // not an action, or more than 2^32 - 1 bytes) `out` holds the message
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

// The signature of `TABLETOP_ENTRY_SYMBOL`: returns the plugin's static table (or
// null, which the host refuses). Takes nothing, allocates nothing, and
// returns the same pointer on every call; the table lives as long as the
// library, which the host never unloads. Callable from any thread.
typedef const TabletopPluginApi *(*TabletopEntryFn)(void);

// The host's log sink (`set_logger`'s argument): `level` is
// one of `TABLETOP_LOG_ERROR`, `TABLETOP_LOG_WARN`, `TABLETOP_LOG_INFO`, `TABLETOP_LOG_DEBUG`,
// `TABLETOP_LOG_TRACE`; `message` (UTF-8, not NUL-terminated) is borrowed for the
// call. Callable from any thread; it
// never unwinds.
typedef void (*TabletopLogFn)(uint32_t level, TabletopStrRef message);

// `TABLETOP_EXT_REMOVE_PLAYER`: a plugin offers it exactly when its manifest says
// `removable_players`.
typedef struct {
  // Takes seat `player` out of the running game in `state`; the others
  // play on, and when too few are left the game ends as its rules say.
  // Mutates `state` like `ply` (a panic poisons the handle). On success
  // writes the new status into `*status_out`; on failure (no such seat,
  // already out, the game is over) the state is unchanged and `out` holds
  // the message.
  int32_t (*remove_player)(TabletopStateHandle *state,
                           uint32_t player,
                           TabletopRawStatus *status_out,
                           TabletopPluginBuf *out);
} TabletopRemovePlayerExt;

// `TABLETOP_EXT_EXPAND_NOTATION`.
typedef struct {
  // Expands a shorthand of `player`: a `text` (borrowed) that stands for
  // several single-action notations in a row. On `TABLETOP_CODE_OK`, `out` stays
  // empty when the text is not a shorthand (the host then uses
  // `parse_action`), and otherwise holds a JSON array of strings, the
  // single-action notations in order, which the host checks and applies
  // as one request. On failure `out` holds a message naming the place in
  // the text that is wrong. Only reads `state`.
  int32_t (*expand_notation)(const TabletopStateHandle *state,
                             uint32_t player,
                             TabletopStrRef text,
                             TabletopPluginBuf *out);
} TabletopExpandNotationExt;

// `TABLETOP_EXT_RESAMPLE`: games with hidden information offer it; without it the
// host treats a state as hiding nothing (a resample is a clone).
typedef struct {
  // Writes into `*state_out` (owned by the caller) a new state consistent
  // with everything `viewer` knows of `state`, drawn with `random`: the
  // same for the same `random`, and the same for two states `viewer`
  // cannot tell apart (it reads nothing hidden from `viewer`). Only reads
  // `state`.
  int32_t (*resample)(const TabletopStateHandle *state,
                      uint32_t viewer,
                      uint64_t random,
                      TabletopStateHandle **state_out,
                      TabletopPluginBuf *out);
} TabletopResampleExt;

// `TABLETOP_EXT_SEAT_NAMES`: a game that names its seats offers it; the host then
// names a seat as `seat 1 (B)` (the API's 0-based number and the game's
// name) in its messages and lists the names in its catalog.
typedef struct {
  // Writes into `out` a JSON array of `players` strings: the game's short
  // name of each seat in a match of that size (`["A","B"]`, `["P1","P2"]`).
  // Touches no handle; callable from any thread at any time.
  int32_t (*seat_names)(uint32_t players, TabletopPluginBuf *out);
} TabletopSeatNamesExt;

// `TABLETOP_EXT_SEATS_OUT`: a game whose rules can put a player out of a running
// game offers it; without it the host knows only the seats it took out
// itself (`remove_player`).
typedef struct {
  // Writes into `out` a JSON array of the seats that are out of the game
  // in `state` and never move again, in seat order, each with the rule
  // that put it out: `[{"seat":2,"reason":"F7: cannot move"}]`; `[]`
  // when every seat plays on. A seat taken out with `remove_player` is
  // listed too (the state cannot tell why a seat went out); the host
  // gives its own reason for those. `reason` is a short text for people,
  // citing the rule. Only reads `state` (callable from any thread, one
  // call at a time per handle); `out` is plugin-owned, released with
  // `free_buf` like every buffer.
  int32_t (*seats_out)(const TabletopStateHandle *state, TabletopPluginBuf *out);
} TabletopSeatsOutExt;

// `TABLETOP_EXT_EXPLAIN_REFUSAL`: why an attempted action is refused. The host
// asks after a refusal only, so the hot path never pays for it. Each
// function only reads `state` (one call at a time per handle, from any
// thread) and writes plugin-owned text into `out`, released with
// `free_buf`.
typedef struct {
  // Explains why action id `action` of `player` is not legal now: writes
  // into `out` a JSON object `{"notation":false,"reason":"RED_LINE",
  // "message":"…"}` (a specific UPPER_SNAKE reason code and one sentence
  // citing the rule), and leaves `out` empty when the action is legal.
  // Reveals nothing hidden from `player`.
  int32_t (*explain_action)(const TabletopStateHandle *state,
                            uint32_t player,
                            uint64_t action,
                            TabletopPluginBuf *out);
  // The same for a notation text (borrowed): `"notation":true` when the
  // text does not parse, `false` when it parses to an action that is not
  // legal now; `out` stays empty when the text is a legal action.
  int32_t (*explain_notation)(const TabletopStateHandle *state,
                              uint32_t player,
                              TabletopStrRef text,
                              TabletopPluginBuf *out);
  // Writes into `*count_out` how many action ids the match of `state` can
  // ever use (every id is below it; 0 when unknown).
  int32_t (*action_space)(const TabletopStateHandle *state,
                          uint64_t *count_out,
                          TabletopPluginBuf *out);
} TabletopExplainRefusalExt;

// `TABLETOP_EXT_SVG_BOARD`: a game that draws its board offers it; a client then
// shows the board instead of the view's JSON.
typedef struct {
  // Writes into `out` a UTF-8 SVG document (root element `<svg>`, at most
  // `TABLETOP_MAX_SVG_BYTES`) of the board as `viewer` may see it: it draws only
  // what that viewer's view holds (the same for two states the viewer
  // cannot tell apart). The elements an action can involve carry the
  // `id`s that `TabletopActionTargetsExt` names, stable from state to state.
  // Only reads `state`.
  int32_t (*render_svg)(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out);
} TabletopSvgBoardExt;

// `TABLETOP_EXT_ACTION_TARGETS`: a game offering it with `TABLETOP_EXT_SVG_BOARD` can be
// played by clicks on its board.
typedef struct {
  // Writes into `out` a JSON array with one entry per id of `ids` (`count`,
  // caller-owned; legal actions of `player`): the array of board element
  // ids that action involves, in the order a person would click them
  // (from, then to), each an `id` of `player`'s SVG board; the entry of
  // an id that is not a legal action is unspecified (often empty). Only
  // reads `state`.
  int32_t (*action_targets)(const TabletopStateHandle *state,
                            uint32_t player,
                            const uint64_t *ids,
                            size_t count,
                            TabletopPluginBuf *out);
} TabletopActionTargetsExt;

// `TABLETOP_EXT_EVALUATE`: a game offers it to have search bots score the
// positions where they cut off a playout; without it a cut-off playout
// counts as a draw.
typedef struct {
  // Writes into `values_out` (caller-owned, `count` entries, one per seat)
  // the game's estimate of each seat's final standing from `state`, from 0
  // (certain last place) to 1 (certain win), each finite; for cutting off
  // a search's playouts. A `count` other than the state's number of seats
  // is refused with `TABLETOP_CODE_INTERNAL`
  // and a message, `values_out` then unspecified. Only reads `state`.
  int32_t (*evaluate)(const TabletopStateHandle *state,
                      double *values_out,
                      size_t count,
                      TabletopPluginBuf *out);
} TabletopEvaluateExt;

#endif  /* TABLETOP_PLUGIN_H */

// The name of the one exported entry function.
#define TABLETOP_ENTRY_SYMBOL "tabletop_plugin_entry"

// Extension `TabletopRemovePlayerExt`: taking one seat out of a running game.
#define TABLETOP_EXT_REMOVE_PLAYER "tabletop.remove-player/1"

// Extension `TabletopExpandNotationExt`: shorthands standing for several actions.
#define TABLETOP_EXT_EXPAND_NOTATION "tabletop.expand-notation/1"

// Extension `TabletopResampleExt`: states consistent with what a viewer knows.
#define TABLETOP_EXT_RESAMPLE "tabletop.resample/1"

// Extension `TabletopSeatNamesExt`: the game's names of its seats.
#define TABLETOP_EXT_SEAT_NAMES "tabletop.seat-names/1"

// Extension `TabletopSeatsOutExt`: which seats the rules have taken out, and why.
#define TABLETOP_EXT_SEATS_OUT "tabletop.seats-out/1"

// Extension `TabletopExplainRefusalExt`: why an action is not legal now.
#define TABLETOP_EXT_EXPLAIN_REFUSAL "tabletop.explain-refusal/2"

// Extension `TabletopSvgBoardExt`: the board as SVG for a viewer.
#define TABLETOP_EXT_SVG_BOARD "tabletop.svg-board/1"

// Extension `TabletopActionTargetsExt`: the board elements an action involves.
#define TABLETOP_EXT_ACTION_TARGETS "tabletop.action-targets/1"

// Extension `TabletopEvaluateExt`: a position's value for each seat.
#define TABLETOP_EXT_EVALUATE "tabletop.evaluate/1"

// The one function a plugin exports (its name is
// `TABLETOP_ENTRY_SYMBOL`, its type `TabletopEntryFn`): define it with
// `TABLETOP_EXPORT` and return the address of a static table.
TABLETOP_EXPORT const TabletopPluginApi *tabletop_plugin_entry(void);

#ifdef __cplusplus
}  // extern "C"
#endif
