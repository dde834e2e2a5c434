#include "ui/widgets/view_help.h"

#include <QObject>

namespace moe::ui {

QString viewHelp(const QString& view) {
  if (view == "Cluster")
    return QObject::tr(
        "<h3>Cluster</h3><p>Every card of every server, and the links between them. A line "
        "between two cards is an HCCS link inside a server; on a switch fabric (the "
        "h800-nvswitch profile) a line from a card to its server's switch is the card's switch "
        "port; a dashed line to the fabric is a card's RDMA NIC. Its colour and width are the "
        "current load of the busier direction "
        "(grey idle, then green to red as it fills up). The bar under a card shows its vector "
        "cores: working, "
        "waiting, idle.</p><p>Click a card to open it in the Card view; click a link to see "
        "both directions in the Inspector.</p>");
  if (view == "Card")
    return QObject::tr(
        "<h3>Card</h3><p>The cores of one card and the buffers between them. Each core's fill "
        "colour is its role in the current stage (sender, forwarder, receiver, gemm, ...); its "
        "border is what it is doing now (copying, computing, or waiting — waiting cores are "
        "hatched). Idle cores have no program in this stage: pale grey with a thin plain "
        "border.</p><p>Each ring is a strip: "
        "filled chunks are written but not yet read. A sender waits when the ring is full "
        "(wait-space); a receiver waits when it is empty (wait-data). Rings of one kind (say, "
        "one per sending card) sit under one line; on a card with many rings each kind starts "
        "folded into that line, with one small cell per ring that darkens as the ring fills. "
        "Click the line to open or fold it. The fused operator shows its workspace slots "
        "instead.</p>");
  if (view == "Experts")
    return QObject::tr(
        "<h3>Experts</h3><p>How the router spread tokens over the experts, and how that load "
        "lands on the ranks before and after MoeUpdateExpert maps each expert to one of its "
        "replicas. A max/mean of 1.0 is perfect balance.</p><p>\"Rebalance from this load\" "
        "asks EPLB for a new placement with spare (redundant) expert slots, re-runs the layer, "
        "and shows the previous and the rebalanced load side by side.</p>");
  if (view == "Timeline")
    return QObject::tr(
        "<h3>Timeline</h3><p>Time runs left to right. Each lane is one core (colour = "
        "activity) or, per role, the share of that role's cores working (dark) and waiting "
        "(pale). Dotted lines mark where each stage begins. The red line is the time the "
        "other views show: click anywhere to see the whole machine at that moment.</p><p>For "
        "the fused operator the top lanes show communication hidden under compute (green) or "
        "exposed (red).</p>");
  if (view == "Metrics")
    return QObject::tr(
        "<h3>Metrics</h3><p>Link bandwidth in use (HCCS, RDMA, HBM), how full the rings and "
        "workspace slots are, and how many cores work or wait, over emulated time.</p>");
  if (view == "Scenario")
    return QObject::tr(
        "<h3>Scenario</h3><p>Every input of the run: cluster size, model shape, routing, "
        "EPLB, ring sizes, hardware. Hover a field for its meaning and range (from "
        "docs/SCENARIO.md). A field with an error turns red and names the rule; Run stays "
        "disabled until the scenario is valid. Apply re-runs with it.</p>");
  if (view == "Compare")
    return QObject::tr(
        "<h3>Compare</h3><p>Every design of this workload (phased, streaming and flat full-mesh "
        "dispatch/combine, or pipelined vs sequential fused operator) runs to the end on the "
        "same scenario and "
        "inputs, each checked against the golden reference. The table and chart show where "
        "the time goes; the timelines draw every run on one time axis, so a longer run is "
        "drawn longer. When the scenario changes, the old figures are marked stale.</p>");
  if (view == "A/B")
    return QObject::tr(
        "<h3>A/B</h3><p>Pin the current run as A, change anything (a field, the hardware, the "
        "design) and run B: both run to the end and their key figures, stage durations, "
        "ring occupancy over time and timelines (on one time axis) sit side by side, B "
        "against A. A side whose scenario or "
        "design is no longer the current one is marked stale and lists what changed.</p>");
  if (view == "Sweep")
    return QObject::tr(
        "<h3>Sweep</h3><p>Runs the current scenario many times, varying one or two fields "
        "(values separated by commas, or from:to:step, or from:to:*factor), every design, on "
        "every core in a worker thread. One field gives a line per design, two a heat map for "
        "the chosen design. A point whose values break a scenario rule is not run and says "
        "which. Click a point to load its scenario; Save CSV writes what moe-sim sweep "
        "--csv writes.</p>");
  return QObject::tr("<p>No help for this view yet.</p>");
}

}  // namespace moe::ui
