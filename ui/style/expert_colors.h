#pragma once
// Colours that link the replicas of one logical expert across the Experts view: the
// instance bars and the table's rows. Only replicated experts get a hue of their own (a
// handful, so they stay tellable apart); experts with a single instance share a quiet grey.

#include <QColor>
#include <vector>

namespace moe::ui {

class ExpertColors {
 public:
  ExpertColors() = default;
  // replicas[e]: number of physical instances of logical expert e.
  explicit ExpertColors(const std::vector<int>& replicas);
  QColor of(int logicalExpert) const;
  bool replicated(int logicalExpert) const;

 private:
  std::vector<int> hueIndex_;  // -1: not replicated
};

}  // namespace moe::ui
