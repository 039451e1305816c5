#pragma once

#include "namedrowmodel.h"

namespace ddl::desktop {

// The user's images on the server (ApiClient::images), which jobs name as ddl://NAME.
class ImageModel : public NamedRowModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, PushedColumn, DigestColumn, ColumnCount };

    using NamedRowModel::NamedRowModel;

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant
    headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    QVariant display(const QJsonObject &image, int column) const override;
};

} // namespace ddl::desktop
