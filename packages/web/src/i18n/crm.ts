// Russian texts of CRM connections (English is the key: ../i18n.ts).
export const crm: Record<string, string> = {
  'Private app token': 'Токен приватного приложения',
  'API token': 'API-токен',
  'Company domain': 'Домен компании',
  'Connect CRM': 'Подключить CRM',
  Disconnect: 'Отключить',
  'Disconnect this CRM?': 'Отключить эту CRM?',
  Connected: 'Подключена',
  'token stored, never shown': 'токен сохранён и не показывается',
  'Last sync': 'Последняя синхронизация',
  'No syncs yet': 'Синхронизаций ещё не было',
  'Failed syncs': 'Неудачные синхронизации',
  'No CRM connected': 'CRM не подключены',
  Deal: 'Сделка',
  pending: 'в очереди',
  synced: 'передано',
  failed: 'сбой',
  'When a chat is marked done, its contact, a deal and the transcript go to each CRM connected for its channel.':
    'Когда чат отмечен выполненным, контакт, сделка и переписка передаются в каждую CRM, подключённую для его канала.',
};
