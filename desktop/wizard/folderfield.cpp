#include "folderfield.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>

namespace ddl::desktop {

static QString droppedFolder(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl url = mime->urls().first();
    return url.isLocalFile() && QFileInfo(url.toLocalFile()).isDir() ? url.toLocalFile()
                                                                     : QString();
}

FolderField::FolderField(const QString &dialogTitle, QWidget *parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_title(dialogTitle)
{
    setAcceptDrops(true);
    m_edit->setPlaceholderText(tr("Drop a folder here or browse"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addWidget(browse);
    connect(m_edit, &QLineEdit::textChanged, this, &FolderField::pathChanged);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, m_title, path());
        if (!folder.isEmpty())
            setPath(folder);
    });
}

QString FolderField::path() const
{
    return m_edit->text().trimmed();
}

void FolderField::setPath(const QString &path)
{
    m_edit->setText(path);
}

void FolderField::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedFolder(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void FolderField::dropEvent(QDropEvent *event)
{
    const QString folder = droppedFolder(event->mimeData());
    if (folder.isEmpty())
        return;
    setPath(folder);
    event->acceptProposedAction();
}

} // namespace ddl::desktop
