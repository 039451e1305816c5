#pragma once

#include <QAbstractItemModel>
#include <QJsonArray>
#include <memory>
#include <vector>

namespace ddl::desktop {

// A job's output files (ApiClient::artifacts) as a tree of folders and files with
// sizes; a folder's size is the sum of what it holds.
class ArtifactModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, ColumnCount };
    enum Role { PathRole = Qt::UserRole, Sha256Role, SizeRole, IsFileRole };

    explicit ArtifactModel(QObject *parent = nullptr);
    ~ArtifactModel() override;

    void setFiles(const QJsonArray &files);
    int fileCount() const { return m_fileCount; }
    // Every file under index (or all files for an invalid index), as {path, sha256, size}.
    QJsonArray filesUnder(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node
    {
        QString name;
        QString path;
        QString sha256;
        qint64 size = 0;
        bool isFile = false;
        Node *parent = nullptr;
        std::vector<std::unique_ptr<Node>> children;
        int row() const;
    };
    Node *nodeOf(const QModelIndex &index) const;
    static void collect(const Node *node, QJsonArray &out);

    std::unique_ptr<Node> m_root;
    int m_fileCount = 0;
};

} // namespace ddl::desktop
