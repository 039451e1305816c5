#include "gpulending.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

Result<QList<GpuInfo>> selectLentGpus(const QList<GpuInfo> &all, const QStringList &lent)
{
    if (lent.isEmpty())
        return all;
    QList<GpuInfo> selected;
    for (const QString &name : lent) {
        const auto found = std::find_if(all.cbegin(), all.cend(), [&name](const GpuInfo &gpu) {
            return QString::number(gpu.index) == name ||
                   (!gpu.uuid.isEmpty() && gpu.uuid.compare(name, Qt::CaseInsensitive) == 0);
        });
        if (found == all.cend()) {
            QStringList here;
            for (const GpuInfo &gpu : all)
                here << (gpu.uuid.isEmpty() ? QString::number(gpu.index)
                                            : u"%1 (%2)"_s.arg(gpu.index).arg(gpu.uuid));
            return Error::make(
                ErrorCode::InvalidConfig,
                u"--lend-gpus names GPU %1, which this machine does not have; its "
                u"GPUs: %2"_s.arg(name, here.isEmpty() ? u"none"_s : here.join(u", "_s)),
                u"lend_gpus"_s);
        }
        const bool already = std::any_of(selected.cbegin(), selected.cend(), [&](const GpuInfo &g) {
            return g.index == found->index;
        });
        if (!already)
            selected.append(*found);
    }
    std::sort(selected.begin(), selected.end(), [](const GpuInfo &a, const GpuInfo &b) {
        return a.index < b.index;
    });
    return selected;
}

QList<int> gpusAtPositions(const QList<GpuInfo> &announced, const QList<int> &positions)
{
    QList<int> indexes;
    for (const int position : positions) {
        if (position < 0 || position >= announced.size())
            return {};
        indexes.append(announced.at(position).index);
    }
    return indexes;
}

} // namespace ddl::worker
