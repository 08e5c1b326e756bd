//! The reason codes of War's refusals: why a text is not War notation, or
//! why an action (by id or by text) is not legal now. Each code is one rule;
//! the sentence that goes with it cites the ruling (W3–W12). The README's
//! table lists them.

/// The text matches none of the notation's forms (W12).
pub const UNKNOWN_FORM: &str = "UNKNOWN_FORM";
/// A point that is not on the board (W12).
pub const UNKNOWN_POINT: &str = "UNKNOWN_POINT";
/// A tile action whose segment is not written like `d5-d6` (W12).
pub const NOT_A_SEGMENT: &str = "NOT_A_SEGMENT";
/// Two points that no segment joins, named as a tile's segment (W10).
pub const NO_SEGMENT: &str = "NO_SEGMENT";
/// A shot's direction that is not one of the eight (W12).
pub const UNKNOWN_DIRECTION: &str = "UNKNOWN_DIRECTION";
/// A letter that is not `I`, `C` or `A` (W12).
pub const UNKNOWN_UNIT_LETTER: &str = "UNKNOWN_UNIT_LETTER";
/// A layout item that is neither unit letters nor a placement (W3).
pub const LAYOUT_ITEM: &str = "LAYOUT_ITEM";

/// An id outside War's actions (W12).
pub const NO_SUCH_ACTION: &str = "NO_SUCH_ACTION";
/// The game is over (W11).
pub const GAME_OVER: &str = "GAME_OVER";
/// The player is not the side to move.
pub const NOT_YOUR_TURN: &str = "NOT_YOUR_TURN";
/// A move, capture or tile action before the setup is over (W3).
pub const SETUP_NOT_OVER: &str = "SETUP_NOT_OVER";
/// A placement after the setup (W3).
pub const SETUP_OVER: &str = "SETUP_OVER";
/// A placement on another point than the next empty start point (W3).
pub const NOT_NEXT_START_POINT: &str = "NOT_NEXT_START_POINT";
/// A placement of a unit type the army has no more of (W3).
pub const TOO_MANY_UNITS: &str = "TOO_MANY_UNITS";
/// A layout with more units than the side has empty start points (W3).
pub const MORE_UNITS_THAN_START_POINTS: &str = "MORE_UNITS_THAN_START_POINTS";
/// An action of a unit on an empty point (W4).
pub const NO_UNIT: &str = "NO_UNIT";
/// An action of the enemy's unit (W4).
pub const NOT_YOUR_UNIT: &str = "NOT_YOUR_UNIT";
/// A move that ends where it starts (W4).
pub const SAME_POINT: &str = "SAME_POINT";
/// A move onto a point that holds a unit (W4).
pub const DESTINATION_OCCUPIED: &str = "DESTINATION_OCCUPIED";
/// A move of a seized cannon (W9).
pub const CANNON_SEIZED: &str = "CANNON_SEIZED";
/// A move along a red line (W4).
pub const RED_LINE: &str = "RED_LINE";
/// A move or capture across a gap: no segment, or an entrenchment (W4, W5,
/// W10).
pub const GAP: &str = "GAP";
/// A move through a point that holds a unit (W4).
pub const PATH_BLOCKED: &str = "PATH_BLOCKED";
/// A move farther than the unit goes (W4).
pub const TOO_FAR: &str = "TOO_FAR";
/// Any action but a capture while a capture is possible (W8).
pub const CAPTURE_COMPULSORY: &str = "CAPTURE_COMPULSORY";
/// A jump by a cannon (W6).
pub const CANNON_CANNOT_JUMP: &str = "CANNON_CANNOT_JUMP";
/// A jump that does not go straight over one neighbouring point (W6).
pub const NOT_A_JUMP: &str = "NOT_A_JUMP";
/// A jump over an empty point (W6).
pub const NOTHING_TO_JUMP: &str = "NOTHING_TO_JUMP";
/// A jump over a unit of the jumper's own side (W6).
pub const JUMP_OVER_OWN_UNIT: &str = "JUMP_OVER_OWN_UNIT";
/// A jump over an enemy that is defended (W5).
pub const ENEMY_DEFENDED: &str = "ENEMY_DEFENDED";
/// A shot by a unit that is not a cannon (W7).
pub const NOT_A_CANNON: &str = "NOT_A_CANNON";
/// A shot that removes no unit (W7).
pub const SHOT_REMOVES_NOTHING: &str = "SHOT_REMOVES_NOTHING";
/// A tile placed with none of its kind in hand (W10).
pub const NO_TILE_IN_HAND: &str = "NO_TILE_IN_HAND";
/// A tile placed on a printed railway (W10).
pub const PRINTED_RAILWAY: &str = "PRINTED_RAILWAY";
/// A tile placed on a segment that holds one (W10).
pub const SEGMENT_HAS_TILE: &str = "SEGMENT_HAS_TILE";
/// A tile placed on a segment with an enemy unit at an end (W10).
pub const ENEMY_AT_SEGMENT_END: &str = "ENEMY_AT_SEGMENT_END";
/// A tile taken back from a segment without one (W10).
pub const NO_TILE_THERE: &str = "NO_TILE_THERE";
/// A tile of the enemy taken back (W10).
pub const NOT_YOUR_TILE: &str = "NOT_YOUR_TILE";

/// Every code, for the tests that check each is explained and listed.
pub const ALL: [&str; 38] = [
    UNKNOWN_FORM,
    UNKNOWN_POINT,
    NOT_A_SEGMENT,
    NO_SEGMENT,
    UNKNOWN_DIRECTION,
    UNKNOWN_UNIT_LETTER,
    LAYOUT_ITEM,
    NO_SUCH_ACTION,
    GAME_OVER,
    NOT_YOUR_TURN,
    SETUP_NOT_OVER,
    SETUP_OVER,
    NOT_NEXT_START_POINT,
    TOO_MANY_UNITS,
    MORE_UNITS_THAN_START_POINTS,
    NO_UNIT,
    NOT_YOUR_UNIT,
    SAME_POINT,
    DESTINATION_OCCUPIED,
    CANNON_SEIZED,
    RED_LINE,
    GAP,
    PATH_BLOCKED,
    TOO_FAR,
    CAPTURE_COMPULSORY,
    CANNON_CANNOT_JUMP,
    NOT_A_JUMP,
    NOTHING_TO_JUMP,
    JUMP_OVER_OWN_UNIT,
    ENEMY_DEFENDED,
    NOT_A_CANNON,
    SHOT_REMOVES_NOTHING,
    NO_TILE_IN_HAND,
    PRINTED_RAILWAY,
    SEGMENT_HAS_TILE,
    ENEMY_AT_SEGMENT_END,
    NO_TILE_THERE,
    NOT_YOUR_TILE,
];
