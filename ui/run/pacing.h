#pragma once
// Pacing by activity: what playback does with the chosen speed. While data moves between
// cards (a link carries bytes, or a ring holds records not yet read) the play clock runs at
// the chosen speed: that is what a class watches. Where only one kind of activity goes on
// (the experts stage's GEMMs, a card-local copy, an empty wait) the clock fast-forwards: it
// starts at the chosen speed and doubles every second of wall time, until data moves again.
// A short lull inside dispatch is hardly sped up; the 2.5 ms experts stage of the default
// layer passes in seconds. The rule reads only the emulation's observable state, so a
// scenario's schedule follows from its run, and the math is pure, so tests compute it
// without wall time. Qt-free.

#include <cstdint>

#include "core/engine/time.h"

namespace moe {
class Emulation;
}

namespace moe::ui {

// The playback speed the workbench and the recorder start with (emulated ps per wall
// second): the default layer's dispatch and combine then last 20 s or more each.
inline constexpr double kDefaultPlaySpeed = 8e6;
// In a quiet stretch the speed doubles every this much wall time ...
inline constexpr std::int64_t kQuietDoublingNs = 1'000'000'000;
// ... up to this multiple of the chosen speed.
inline constexpr double kMaxQuietFactor = 65536;

// True when data moves between cards: an inter-card link (HCCS, a switch port, a NIC
// sending) carries bytes now, or a ring holds written records nobody has read yet.
bool dataMoving(const Emulation& emu);

// Emulated picoseconds a quiet stretch crosses between `fromNs` and `fromNs + wallNs` of
// wall time since it began, at base speed `psPerWallSecond`.
double quietDistancePs(double psPerWallSecond, double fromNs, double wallNs);
// Wall nanoseconds a quiet stretch, `fromNs` into it, needs to cross `ps` more.
double quietWallNs(double psPerWallSecond, double fromNs, double ps);

}  // namespace moe::ui
