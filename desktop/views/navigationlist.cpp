#include "navigationlist.h"

#include <QMenu>
#include <QMouseEvent>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

namespace ddl::desktop {

NavigationList::NavigationList(QTabWidget *workspace, QWidget *parent)
    : QListWidget(parent)
    , m_workspace(workspace)
{
    setObjectName(QStringLiteral("navigation"));
    setSelectionMode(QAbstractItemView::SingleSelection);
    setContextMenuPolicy(Qt::CustomContextMenu);
    setTextElideMode(Qt::ElideRight);
    setUniformItemSizes(true);
    setFrameShape(QFrame::NoFrame);
    setSpacing(2); // rows a pointer hits easily, as the portal's menu
    connect(this, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (!item)
            return;
        const int index = m_workspace->indexOf(item->data(PageRole).value<QWidget *>());
        if (index >= 0 && index != m_workspace->currentIndex())
            m_workspace->setCurrentIndex(index);
    });
    connect(m_workspace, &QTabWidget::currentChanged, this, &NavigationList::showCurrent);
    connect(this, &QWidget::customContextMenuRequested, this, &NavigationList::showContextMenu);
}

bool NavigationList::isClosable(int workspaceIndex) const
{
    return m_workspace->tabBar()->tabButton(workspaceIndex, QTabBar::RightSide) != nullptr;
}

void NavigationList::scheduleSync()
{
    if (m_syncPending)
        return;
    m_syncPending = true;
    QTimer::singleShot(0, this, &NavigationList::sync);
}

void NavigationList::sync()
{
    m_syncPending = false;
    const QSignalBlocker blocker(this);
    clear();
    bool jobsHeader = false;
    for (int i = 0; i < m_workspace->count(); ++i) {
        if (isClosable(i) && !jobsHeader) {
            jobsHeader = true;
            auto *header = new QListWidgetItem(tr("Open jobs"), this);
            header->setFlags(Qt::NoItemFlags);
            QFont font = header->font();
            font.setBold(true);
            header->setFont(font);
        }
        auto *item = new QListWidgetItem(m_workspace->tabText(i), this);
        item->setData(PageRole, QVariant::fromValue(m_workspace->widget(i)));
        item->setToolTip(m_workspace->tabToolTip(i).isEmpty() ? m_workspace->tabText(i)
                                                               : m_workspace->tabToolTip(i));
    }
    showCurrent(m_workspace->currentIndex());
}

void NavigationList::showCurrent(int workspaceIndex)
{
    QWidget *page = m_workspace->widget(workspaceIndex);
    for (int row = 0; row < count(); ++row) {
        if (item(row)->data(PageRole).value<QWidget *>() == page && page) {
            const QSignalBlocker blocker(this);
            setCurrentRow(row);
            return;
        }
    }
}

int NavigationList::workspaceIndexAt(const QPoint &position) const
{
    const QListWidgetItem *at = itemAt(position);
    return at ? m_workspace->indexOf(at->data(PageRole).value<QWidget *>()) : -1;
}

void NavigationList::mouseReleaseEvent(QMouseEvent *event)
{
    // A middle click closes an open job, as on a tab.
    const int index = workspaceIndexAt(event->position().toPoint());
    if (event->button() == Qt::MiddleButton && index >= 0 && isClosable(index)) {
        emit closeRequested(index);
        return;
    }
    QListWidget::mouseReleaseEvent(event);
}

void NavigationList::showContextMenu(const QPoint &position)
{
    const int index = workspaceIndexAt(position);
    if (index < 0 || !isClosable(index))
        return;
    QMenu menu(this);
    menu.addAction(tr("Close"), this, [this, index] { emit closeRequested(index); });
    menu.exec(viewport()->mapToGlobal(position));
}

} // namespace ddl::desktop
