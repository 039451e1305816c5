#include "artifactmodel.h"

#include <QJsonObject>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

int ArtifactModel::Node::row() const
{
    if (!parent)
        return 0;
    for (size_t i = 0; i < parent->children.size(); ++i) {
        if (parent->children[i].get() == this)
            return int(i);
    }
    return 0;
}

ArtifactModel::ArtifactModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{}

ArtifactModel::~ArtifactModel() = default;

void ArtifactModel::setFiles(const QJsonArray &files)
{
    // A job's outputs are listed once it ended: a new list, so a reset.
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_fileCount = 0;
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString path = file.value("path"_L1).toString();
        const qint64 size = file.value("size"_L1).toInteger();
        Node *folder = m_root.get();
        const QStringList parts = path.split(u'/', Qt::SkipEmptyParts);
        for (qsizetype i = 0; i < parts.size(); ++i) {
            const bool last = i == parts.size() - 1;
            folder->size += size;
            Node *next = nullptr;
            for (const auto &child : folder->children) {
                if (child->name == parts.at(i) && child->isFile == last)
                    next = child.get();
            }
            if (!next) {
                auto node = std::make_unique<Node>();
                node->name = parts.at(i);
                node->path = parts.mid(0, i + 1).join(u'/');
                node->isFile = last;
                node->parent = folder;
                next = node.get();
                folder->children.push_back(std::move(node));
            }
            if (last) {
                next->size = size;
                next->sha256 = file.value("sha256"_L1).toString();
                ++m_fileCount;
            }
            folder = next;
        }
    }
    endResetModel();
}

ArtifactModel::Node *ArtifactModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

void ArtifactModel::collect(const Node *node, QJsonArray &out)
{
    if (node->isFile) {
        out.append(QJsonObject{{"path"_L1, node->path}, {"sha256"_L1, node->sha256},
                               {"size"_L1, node->size}});
        return;
    }
    for (const auto &child : node->children)
        collect(child.get(), out);
}

QJsonArray ArtifactModel::filesUnder(const QModelIndex &index) const
{
    QJsonArray out;
    collect(nodeOf(index), out);
    return out;
}

QModelIndex ArtifactModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    Node *node = nodeOf(parent);
    return createIndex(row, column, node->children.at(size_t(row)).get());
}

QModelIndex ArtifactModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    Node *parent = nodeOf(child)->parent;
    if (!parent || parent == m_root.get())
        return {};
    return createIndex(parent->row(), 0, parent);
}

int ArtifactModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int ArtifactModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant ArtifactModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return node->isFile ? node->name : node->name + u'/';
        return QLocale().formattedDataSize(node->size);
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                            : QVariant();
    case PathRole:
        return node->path;
    case Sha256Role:
        return node->sha256;
    case SizeRole:
        return node->size;
    case IsFileRole:
        return node->isFile;
    }
    return {};
}

QVariant ArtifactModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? tr("Name") : tr("Size");
}

} // namespace ddl::desktop
