#include "imagemodel.h"

#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

int ImageModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ImageModel::display(const QJsonObject &image, int column) const
{
    switch (column) {
    case NameColumn:
        return QString(u"ddl://"_s + image.value("name"_L1).toString());
    case SizeColumn:
        return QLocale().formattedDataSize(image.value("total_size"_L1).toInteger());
    case PushedColumn:
        return localTime(image.value("created_at"_L1));
    // As podman images shows an id: enough to tell two apart.
    case DigestColumn:
        return image.value("digest"_L1).toString().left(19);
    }
    return {};
}

QVariant ImageModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Image");
    case SizeColumn:
        return tr("Size");
    case PushedColumn:
        return tr("Pushed");
    case DigestColumn:
        return tr("Digest");
    }
    return {};
}

} // namespace ddl::desktop
